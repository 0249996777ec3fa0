package dockertest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Compose is a compose project of one file that a test brings up; it is
// taken down, with its volumes, when the test ends.
type Compose struct {
	Project, File string
	bin           []string
	ctx           context.Context
	t             testing.TB
}

// NewCompose writes yaml as project's compose file in dir. bin is the
// compose command: {"docker-compose"} or {"docker", "compose"}.
func NewCompose(ctx context.Context, t testing.TB, bin []string, project, dir, yaml string) *Compose {
	t.Helper()
	c := &Compose{Project: project, File: filepath.Join(dir, "docker-compose.yml"), bin: bin, ctx: ctx, t: t}
	if err := os.WriteFile(c.File, []byte(yaml), 0o644); err != nil {
		t.Fatalf("dockertest: %v", err)
	}
	t.Cleanup(func() { _ = c.command(context.Background(), "down", "-v", "--remove-orphans", "--timeout", "5").Run() })
	return c
}

// Up runs `up -d` with env (KEY=VALUE, e.g. the image tag the file reads)
// added to the environment, failing the test with compose's output.
func (c *Compose) Up(env ...string) {
	c.t.Helper()
	cmd := c.command(c.ctx, "up", "-d")
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		c.t.Fatalf("dockertest: compose up %s: %v: %s", c.Project, err, out)
	}
}

func (c *Compose) command(ctx context.Context, args ...string) *exec.Cmd {
	argv := append(append(append([]string(nil), c.bin...), "-p", c.Project, "-f", c.File), args...)
	return exec.CommandContext(ctx, argv[0], argv[1:]...)
}
