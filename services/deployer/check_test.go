package deployer_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"agentk/contracts/envelope"
	"agentk/platform/service"
	_ "agentk/services/deployer"
)

// TestCheckLoadsTheIncidentFolder (issue 34 #3): `agentk config` said
// "deployer ok" for a dry run seeded from a folder whose incident.yaml id is
// not the folder's name, and `agentk up` then stopped on it. The check now
// loads the folder as Run does.
func TestCheckLoadsTheIncidentFolder(t *testing.T) {
	t.Parallel()
	var check func(func(string) string) error
	for _, r := range service.Registered() {
		if r.Role == envelope.RoleDeployer {
			check = r.Check
		}
	}
	require.NotNil(t, check)
	src := filepath.Join("..", "..", "e2e", "incidents", "bad-release-01")
	renamed := filepath.Join(t.TempDir(), "my-copy")
	require.NoError(t, os.CopyFS(renamed, os.DirFS(src)))
	env := func(dir string) func(string) string {
		m := map[string]string{"AGENTK_DEPLOYER_RUNTIME": "dryrun", "AGENTK_INCIDENT_DIR": dir}
		return func(k string) string { return m[k] }
	}
	require.NoError(t, check(env(src)))
	err := check(env(renamed))
	require.ErrorContains(t, err, "AGENTK_INCIDENT_DIR")
	require.ErrorContains(t, err, `does not equal the folder name "my-copy"`)
	require.ErrorContains(t, check(env(filepath.Join(t.TempDir(), "absent"))), "AGENTK_INCIDENT_DIR")
}
