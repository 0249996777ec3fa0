package dockerrt

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"agentk/services/deployer/internal/policy"
	"agentk/services/deployer/internal/rollback"

	"gopkg.in/yaml.v3"
)

// DetectCompose returns the argv prefix of the compose installed here:
// `docker compose` (v2) when the plugin answers, else `docker-compose` (v1).
// run executes a command and reports whether it exited 0.
func DetectCompose(ctx context.Context, lookPath func(string) (string, error), run func(ctx context.Context, argv ...string) error) ([]string, error) {
	if docker, err := lookPath("docker"); err == nil {
		if run(ctx, docker, "compose", "version") == nil {
			return []string{docker, "compose"}, nil
		}
	}
	if dc, err := lookPath("docker-compose"); err == nil {
		if run(ctx, dc, "version") == nil {
			return []string{dc}, nil
		}
	}
	return nil, ErrNoCompose
}

// ComposeMemo remembers the first compose that DetectCompose found in this
// process. `docker-compose version` (v1, Python) costs 1.4 s and 0.9 s of CPU
// a call here; a dry run only prints the command, and `agentk eval` starts
// a dry-run deployer for every replay, so it asks once. A failed detection
// is not remembered: the next caller asks again.
type ComposeMemo struct {
	mu  sync.Mutex
	bin []string
}

// Detect returns the remembered compose, or DetectCompose's answer.
func (m *ComposeMemo) Detect(ctx context.Context, lookPath func(string) (string, error), run func(ctx context.Context, argv ...string) error) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.bin == nil {
		bin, err := DetectCompose(ctx, lookPath, run)
		if err != nil {
			return nil, err
		}
		m.bin = bin
	}
	return append([]string(nil), m.bin...), nil
}

// RunQuiet runs argv without a shell and reports only whether it succeeded.
func RunQuiet(ctx context.Context, argv ...string) error {
	return exec.CommandContext(ctx, argv[0], argv[1:]...).Run()
}

// Compose rolls a service back by pinning it to the target image id in an
// override file the deployer owns and running
// `compose -p P -f FILE -f OVERRIDE up -d --force-recreate --no-deps SERVICE`.
// It never restarts: restart keeps the current image.
type Compose struct {
	// Bin is the compose argv prefix (DetectCompose).
	Bin     []string
	Project string
	File    string
	// StateDir holds the override file and the pins it is rendered from.
	StateDir string
	Docker   *Docker
	// Env is the command's whole environment (DOCKER_HOST, PATH, HOME…);
	// nothing else of the deployer's environment leaks into compose.
	Env []string
}

// OverridePath is the override file compose is given.
func (c *Compose) OverridePath() string {
	return filepath.Join(c.StateDir, "agentk-pins."+c.Project+".yml")
}

func (c *Compose) pinsPath() string {
	return filepath.Join(c.StateDir, "agentk-pins."+c.Project+".json")
}

// Command is the exact argv Apply runs for service.
func (c *Compose) Command(service string) []string {
	argv := append([]string(nil), c.Bin...)
	return append(argv, "-p", c.Project, "-f", c.File, "-f", c.OverridePath(), "up", "-d", "--force-recreate", "--no-deps", service)
}

// CommandFor implements rollback.Planner.
func (c *Compose) CommandFor(service string) []string { return c.Command(service) }

// Apply pins plan.Service to the target image id and runs compose. The
// command's exit code is returned; an error means it could not run at all.
func (c *Compose) Apply(ctx context.Context, plan policy.Plan) (rollback.Applied, error) {
	argv := c.Command(plan.Service)
	applied := rollback.Applied{Command: argv, ExitCode: -1}
	id, err := c.Docker.ResolveTarget(ctx, plan)
	if err != nil {
		return applied, err
	}
	if err := c.pin(plan.Service, id); err != nil {
		return applied, err
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = c.Env
	cmd.Dir = filepath.Dir(c.File)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	span := composeSpan(ctx, argv)
	err = cmd.Run()
	endCompose(span, cmd, err)
	applied.Output = tail(out.String(), 2000)
	var exit *exec.ExitError
	switch {
	case err == nil:
		applied.ExitCode = 0
	case errors.As(err, &exit):
		applied.ExitCode = exit.ExitCode()
		if ctx.Err() != nil {
			return applied, fmt.Errorf("%w: %s: %w", ErrCompose, strings.Join(argv, " "), ctx.Err())
		}
	default:
		return applied, fmt.Errorf("%w: %s: %w", ErrCompose, strings.Join(argv, " "), err)
	}
	return applied, nil
}

// Verify delegates to the Docker API.
func (c *Compose) Verify(ctx context.Context, plan policy.Plan) (rollback.Verification, error) {
	return c.Docker.Verify(ctx, plan)
}

// pin records service → image id and rewrites the override file atomically.
func (c *Compose) pin(service, imageID string) error {
	if err := os.MkdirAll(c.StateDir, 0o750); err != nil {
		return fmt.Errorf("%w: state dir: %w", ErrCompose, err)
	}
	pins := map[string]string{}
	if b, err := os.ReadFile(c.pinsPath()); err == nil {
		if err := json.Unmarshal(b, &pins); err != nil {
			return fmt.Errorf("%w: %s: %w", ErrCompose, c.pinsPath(), err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%w: %w", ErrCompose, err)
	}
	pins[service] = imageID
	version, err := composeVersion(c.File)
	if err != nil {
		return err
	}
	b, _ := json.MarshalIndent(pins, "", "  ")
	if err := writeAtomic(c.pinsPath(), b); err != nil {
		return err
	}
	return writeAtomic(c.OverridePath(), renderOverride(version, pins))
}

// renderOverride writes the pins as a compose override. The version key
// matches the main file's, which compose v1 requires of an extension file.
// Each pinned service also gets the LabelPin label (the image id), so that
// the ledger watcher knows a container of the deployer's own rollback.
func renderOverride(version string, pins map[string]string) []byte {
	type svc struct {
		Image  string            `yaml:"image"`
		Labels map[string]string `yaml:"labels"`
	}
	doc := struct {
		Version  string         `yaml:"version,omitempty"`
		Services map[string]svc `yaml:"services"`
	}{Version: version, Services: map[string]svc{}}
	names := make([]string, 0, len(pins))
	for n := range pins {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		doc.Services[n] = svc{Image: pins[n], Labels: map[string]string{LabelPin: pins[n]}}
	}
	b, _ := yaml.Marshal(doc)
	return append([]byte("# Written by the agentk deployer: services pinned to their rollback target. Do not edit.\n"), b...)
}

func composeVersion(file string) (string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("%w: compose file: %w", ErrCompose, err)
	}
	var top struct {
		Version string `yaml:"version"`
	}
	if err := yaml.Unmarshal(b, &top); err != nil {
		return "", fmt.Errorf("%w: compose file %s: %w", ErrCompose, file, err)
	}
	return top.Version, nil
}

func writeAtomic(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o640); err != nil {
		return fmt.Errorf("%w: %w", ErrCompose, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("%w: %w", ErrCompose, err)
	}
	return nil
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

// ComposeEnv is the environment compose runs with: what it needs to reach the
// engine and find its plugins, nothing else of the deployer's (no secrets).
func ComposeEnv(getenv func(string) string) []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "DOCKER_HOST", "DOCKER_TLS_VERIFY", "DOCKER_CERT_PATH", "DOCKER_CONFIG", "DOCKER_CONTEXT", "XDG_RUNTIME_DIR"} {
		if v := getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}
