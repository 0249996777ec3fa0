package faults

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// natsServerVersion is the nats-server the tests run, the one scripts/images.sh
// puts in the agentk/nats image.
const natsServerVersion = "v2.15.2"

var (
	binOnce            sync.Once
	natsBin, agentkBin string
	binErr             error
)

// binaries returns a real nats-server (cached in bin/tools/ as
// scripts/images.sh caches it, installed from the module proxy otherwise) and
// the agentk binary built from this tree with the crash points
// (-tags agentk_crashpoints), once per test run
// (AGENTK_TEST_AGENTK_BIN names a prebuilt one instead).
func binaries(t *testing.T) (nats, agentk string) {
	t.Helper()
	binOnce.Do(func() {
		root, err := repoRoot()
		if err != nil {
			binErr = err
			return
		}
		tools := filepath.Join(root, "bin", "tools")
		natsBin = filepath.Join(tools, "nats-server-"+natsServerVersion)
		if _, err := os.Stat(natsBin); err != nil {
			if err := os.MkdirAll(tools, 0o755); err != nil {
				binErr = err
				return
			}
			gobin, err := os.MkdirTemp("", "agentk-nats-")
			if err != nil {
				binErr = err
				return
			}
			defer func() { _ = os.RemoveAll(gobin) }()
			cmd := exec.Command("go", "install", "github.com/nats-io/nats-server/v2@"+natsServerVersion)
			cmd.Env = append(os.Environ(), "GOWORK=off", "GOBIN="+gobin, "CGO_ENABLED=0")
			if out, err := cmd.CombinedOutput(); err != nil {
				binErr = &buildError{what: "nats-server", out: string(out), err: err}
				return
			}
			if err := os.Rename(filepath.Join(gobin, "nats-server"), natsBin); err != nil {
				binErr = err
				return
			}
		}
		if b := os.Getenv("AGENTK_TEST_AGENTK_BIN"); b != "" {
			agentkBin = b // prebuilt (a developer's loop); never removed
			return
		}
		dir, err := os.MkdirTemp("", "agentk-faults-bin-")
		if err != nil {
			binErr = err
			return
		}
		agentkBin = filepath.Join(dir, "agentk")
		// The crash-point build: platform/crashpoint's kill points exist only
		// in a binary built with this tag, never in a production one. Built
		// as scripts/images.sh builds the image's agentk (CGO_ENABLED=0,
		// -trimpath) so that in make test, where e2e/compose's make images
		// ran first, every package the tag does not change (all but
		// crashpoint, the deployer's natsport and what imports them) comes
		// from the build cache instead of compiling a third time.
		cmd := exec.Command("go", "build", "-trimpath", "-tags", "agentk_crashpoints", "-o", agentkBin, "./services/agentk")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			binErr = &buildError{what: "agentk", out: string(out), err: err}
		}
	})
	require.NoError(t, binErr)
	return natsBin, agentkBin
}

type buildError struct {
	what, out string
	err       error
}

func (e *buildError) Error() string { return "build " + e.what + ": " + e.err.Error() + "\n" + e.out }

func repoRoot() (string, error) {
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		wd, werr := os.Getwd()
		if werr != nil {
			return "", werr
		}
		return filepath.Join(wd, "..", ".."), nil
	}
	return strings.TrimSpace(string(out)), nil
}

func dirOf(p string) string { return filepath.Dir(p) }
