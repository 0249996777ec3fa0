package compose

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"agentk/platform/dockertest"
)

// requireDocker is dockertest.Require (skip unless AGENTK_REQUIRE_DOCKER=1,
// then a missing engine fails) plus docker-compose, which the compose tests
// drive.
func requireDocker(t *testing.T) {
	t.Helper()
	dockertest.Require(t)
	if out, err := exec.Command("docker-compose", "version", "--short").CombinedOutput(); err != nil {
		t.Fatalf("%s=1 but no docker-compose: %v: %s", dockertest.Switch, err, bytes.TrimSpace(out))
	}
}

// repoRoot is the workspace root (this package is e2e/compose).
func repoRoot(t *testing.T) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	require.True(t, ok)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// run runs a command in dir with env added to the process environment and
// returns its combined output; a failure carries the output.
func run(ctx context.Context, dir string, env []string, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// container is the part of `docker inspect` the isolation checks read.
type container struct {
	ID     string
	Name   string
	Config struct {
		Env    []string
		Labels map[string]string
	}
	State struct {
		Status   string
		ExitCode int
	}
	HostConfig struct {
		GroupAdd []string
	}
	Mounts []struct {
		Type        string
		Source      string
		Destination string
		RW          bool
	}
}

func (c container) service() string { return c.Config.Labels["com.docker.compose.service"] }

// mountAt returns the host source mounted at dest, if any.
func (c container) mountAt(dest string) (string, bool) {
	for _, m := range c.Mounts {
		if m.Destination == dest {
			return m.Source, true
		}
	}
	return "", false
}

func (c container) hasDockerSocket() bool {
	for _, m := range c.Mounts {
		if strings.HasSuffix(m.Source, "docker.sock") || strings.HasSuffix(m.Destination, "docker.sock") {
			return true
		}
	}
	return false
}

// envWithPrefix lists the container's variables whose name starts with prefix.
func (c container) envWithPrefix(prefix string) []string {
	var out []string
	for _, kv := range c.Config.Env {
		if strings.HasPrefix(kv, prefix) {
			out = append(out, kv)
		}
	}
	return out
}

// inspectProject returns every container of a compose project, by service.
func inspectProject(ctx context.Context, t *testing.T, project string) map[string]container {
	t.Helper()
	ids, err := run(ctx, "", nil, "docker", "ps", "-aq", "--filter", "label=com.docker.compose.project="+project)
	require.NoError(t, err)
	fields := strings.Fields(ids)
	require.NotEmpty(t, fields, "no containers in project %s", project)
	out, err := run(ctx, "", nil, "docker", append([]string{"inspect"}, fields...)...)
	require.NoError(t, err)
	var cs []container
	require.NoError(t, json.Unmarshal([]byte(out), &cs))
	bySvc := map[string]container{}
	for _, c := range cs {
		bySvc[c.service()] = c
	}
	return bySvc
}

// leftovers lists what Docker still holds for a compose project.
func leftovers(ctx context.Context, project string) (string, error) {
	var b strings.Builder
	for _, kind := range [][]string{
		{"ps", "-aq"}, {"volume", "ls", "-q"}, {"network", "ls", "-q"},
	} {
		out, err := run(ctx, "", nil, "docker", append(kind, "--filter", "label=com.docker.compose.project="+project)...)
		if err != nil {
			return "", err
		}
		if s := strings.TrimSpace(out); s != "" {
			fmt.Fprintf(&b, "%s: %s\n", kind[0], strings.Join(strings.Fields(s), " "))
		}
	}
	return b.String(), nil
}

// poll calls f until it returns true or the deadline passes; f's last error
// is reported on timeout.
func poll(t *testing.T, ctx context.Context, timeout time.Duration, what string, f func(ctx context.Context) (bool, error)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	var last error
	for {
		ok, err := f(ctx)
		if ok {
			return
		}
		if err != nil {
			last = err
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: not within %s (last error: %v)", what, timeout, last)
		case <-tick.C:
		}
	}
}
