//go:build !agentk_crashpoints

package crashpoint_test

import (
	"os/exec"
	"strings"
	"testing"

	"agentk/platform/crashpoint"

	"github.com/stretchr/testify/require"
)

// A normal build has no crash points: only off.go is compiled, and Hit
// returns whatever the environment names.
func TestNormalBuildCannotStop(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.GoFiles}}", ".").Output()
	require.NoError(t, err)
	require.Equal(t, "[crashpoint.go off.go]", strings.TrimSpace(string(out)))
	t.Setenv(crashpoint.EnvPoint, crashpoint.DeployerHandled)
	t.Setenv(crashpoint.EnvMarker, t.TempDir()+"/marker")
	crashpoint.Hit(crashpoint.DeployerHandled) // would block forever in a crash-point build
}
