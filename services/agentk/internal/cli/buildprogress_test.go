package cli

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMakeDemoShowsBuildProgress (issue 34 #5): `make demo` pipes `go build
// -v` through scripts/build-progress.awk, so a cold first build prints a
// line as it starts and every 25 packages, passes a compiler error through,
// and says when there was nothing to compile.
func TestMakeDemoShowsBuildProgress(t *testing.T) {
	t.Parallel()
	awk, err := exec.LookPath("awk")
	if err != nil {
		t.Skip("no awk")
	}
	script := filepath.Join(repoRoot, "scripts", "build-progress.awk")
	progress := func(in string) string {
		cmd := exec.Command(awk, "-f", script)
		cmd.Stdin = strings.NewReader(in)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
		return string(out)
	}
	var pkgs []string
	for i := range 60 {
		pkgs = append(pkgs, "agentk/services/p"+strings.Repeat("x", i%3)+"/internal/q")
	}
	out := progress(strings.Join(pkgs, "\n") + "\n# agentk/services/gate\nservices/gate/x.go:3:2: undefined: y\n")
	require.Equal(t, []string{
		"  compiling: 1 packages so far (now agentk/services/p/internal/q)",
		"  compiling: 25 packages so far (now agentk/services/p/internal/q)",
		"  compiling: 50 packages so far (now agentk/services/px/internal/q)",
		"# agentk/services/gate",
		"services/gate/x.go:3:2: undefined: y",
		"  compiled 60 packages",
	}, strings.Split(strings.TrimRight(out, "\n"), "\n"))
	require.Equal(t, "  nothing to compile: the build cache is warm\n", progress(""))

	mk, err := exec.Command("make", "-n", "--no-print-directory", "-C", repoRoot, "demo").CombinedOutput()
	if err == nil {
		first := strings.SplitN(string(mk), "\n", 2)[0]
		require.Contains(t, first, "make demo: building bin/agentk first", "the first thing make demo does is say so")
	}
}
