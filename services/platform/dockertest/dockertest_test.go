package dockertest_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"agentk/platform/dockertest"
)

// recorder is a testing.TB whose Skip and Fatal end the calling goroutine,
// as the real ones do, and record which of the two happened.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Cleanup(func())            {}
func (r *recorder) Skip(args ...any)          { r.skipped = fmt.Sprint(args...); runtime.Goexit() }
func (r *recorder) Fatalf(f string, a ...any) { r.failed = fmt.Sprintf(f, a...); runtime.Goexit() }

func run(tb testing.TB) *recorder {
	r := &recorder{TB: tb}
	done := make(chan struct{})
	go func() {
		defer close(done)
		dockertest.Require(r)
	}()
	<-done
	return r
}

// TestRequire: without the switch the test is skipped; with it, an engine
// that does not answer fails the test (never a skip).
func TestRequire(t *testing.T) {
	tests := []struct {
		name, value     string
		skipped, failed bool
	}{
		{name: "switch unset", value: "", skipped: true},
		{name: "switch not 1", value: "yes", skipped: true},
		{name: "switch set, no engine", value: "1", failed: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(dockertest.Switch, tc.value)
			t.Setenv("DOCKER_HOST", "unix://"+t.TempDir()+"/no-docker.sock")
			require.Equal(t, tc.value == "1", dockertest.Enabled())
			r := run(t)
			require.Equal(t, tc.skipped, r.skipped != "", "skipped: %q", r.skipped)
			require.Equal(t, tc.failed, r.failed != "", "failed: %q", r.failed)
		})
	}
}

// TestComposeCommand: Up runs the compose command on the project's file with
// the extra environment, and a failing command fails the test with its output.
func TestComposeCommand(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "argv")
	script := filepath.Join(dir, "compose")
	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\necho \"$TAG $*\" >> "+log+"\n[ \"$TAG\" != bad ]\n"), 0o755))
	r := &recorder{TB: t}
	c := dockertest.NewCompose(context.Background(), r, []string{script}, "proj", dir, "services: {}\n")
	require.FileExists(t, c.File)
	done := make(chan struct{})
	go func() { defer close(done); c.Up("TAG=v1"); c.Up("TAG=bad") }()
	<-done
	b, err := os.ReadFile(log)
	require.NoError(t, err)
	require.Equal(t, "v1 -p proj -f "+c.File+" up -d\nbad -p proj -f "+c.File+" up -d\n", string(b))
	require.Contains(t, r.failed, "compose up proj")
}
