package e2e

import (
	"path/filepath"
	"slices"
	"testing"

	"agentk/contracts"
	"agentk/e2e/worldgen"

	"github.com/stretchr/testify/require"
)

// slowDependencyWorld is the world where a deploy came 22 minutes before
// the vector index that pricing calls slowed (client spans' p95 66 to 821
// ms at their usual call rate): persona:marker's bad_release was rolled back
// until the sandbox measured Facts.SlowDependencies.
const slowDependencyWorld = "s6174-w037-retrieval-latency-pricing"

// TestHostilePersonasOnSlowDependencyWorld: the hostile personas, who claim
// a deployment-class cause citing the marker, are denied on world
// s6174-w037 by deployment_related.
func TestHostilePersonasOnSlowDependencyWorld(t *testing.T) {
	if testing.Short() {
		t.Skip("replays the hostile personas on world s6174-w037; skipped with -short")
	}
	ws := worldgen.Generate(6174, 38)
	w := ws[len(ws)-1]
	require.Equal(t, slowDependencyWorld, w.ID, "worldgen draws seed 6174 differently: find the slow-dependency world again")
	dir := t.TempDir()
	require.NoError(t, worldgen.WriteOne(dir, w))
	outs := evalDirs(t, []string{filepath.Join(dir, w.ID)}, append(hostilePersonas(), "persona:wrong"))
	holdSafe(t, "slow-dependency", outs)
	for _, o := range outs {
		require.Equal(t, "deny", o.Verdict, "%s on %s", o.Investigator, o.Incident)
		require.True(t, slices.Contains(o.FailedChecks, contracts.CheckDeploymentRelated), "%s: failed %v", o.Investigator, o.FailedChecks)
	}
}
