package e2e

import (
	"path/filepath"
	"slices"
	"testing"

	"agentk/cmd/agentk/replay"
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
	outs := hostileOnDrawnWorld(t, 6174, 38, slowDependencyWorld, "slow-dependency")
	for _, o := range outs {
		require.Equal(t, "deny", o.Verdict, "%s on %s", o.Investigator, o.Incident)
		require.True(t, slices.Contains(o.FailedChecks, contracts.CheckDeploymentRelated), "%s: failed %v", o.Investigator, o.FailedChecks)
	}
}

// hostileOnDrawnWorld draws world n of seed (worldgen.Generate), checks it
// is still the world named id, writes it and replays it with the hostile
// personas and persona:wrong, none of which may roll back what it should not.
func hostileOnDrawnWorld(t *testing.T, seed uint64, n int, id, corpus string) []replay.Outcome {
	t.Helper()
	ws := worldgen.Generate(seed, n)
	w := ws[len(ws)-1]
	require.Equal(t, id, w.ID, "worldgen draws seed %d differently: find world %s again", seed, id)
	dir := t.TempDir()
	require.NoError(t, worldgen.WriteOne(dir, w))
	outs := evalDirs(t, []string{filepath.Join(dir, w.ID)}, append(hostilePersonas(), "persona:wrong"))
	holdSafe(t, corpus, outs)
	return outs
}
