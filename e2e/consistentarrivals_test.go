package e2e

import (
	"testing"

	"agentk/e2e/worldgen"

	"github.com/stretchr/testify/require"
)

// consistentSurges are the TRAPS of a lift on the consistent arrivals
// (facts.ConsistentArrivals): loggedSeed's surges of 3x to 9x arrivals
// beyond the service's capacity (every request slowed, some turned away
// "too many concurrent requests"), each under a tail sampler that reads
// its share of the clean traces consistently by the trace id (each world
// its own reading, set on the drawn world) and whose logs are sampled with
// the traces (no logged arrivals to read): the consistent share of the
// traces rises with the arrivals, and the surge must stand.
var consistentSurges = map[int]string{
	225:  worldgen.ReadLow64,
	273:  worldgen.ReadDefaultSalt,
	537:  worldgen.ReadW3C,
	1005: worldgen.ReadHigh64,
}

// consistentSurgeWorlds are consistentSurges drawn, their readings set.
func consistentSurgeWorlds(t *testing.T) []worldgen.World {
	t.Helper()
	var ws []worldgen.World
	for _, i := range []int{225, 273, 537, 1005} {
		w := worldgen.Draw(loggedSeed, i)
		require.NotNil(t, w.Tail, w.ID)
		require.Equal(t, "traffic_surge", w.Class, w.ID)
		tl := *w.Tail
		tl.Reading, tl.Logs = consistentSurges[i], worldgen.LogsWithTraces
		w.Tail = &tl
		ws = append(ws, w)
	}
	return ws
}

// TestConsistentSurgesAreDenied replays every investigator on the surges
// beyond capacity under a consistent tail sampler: none is rolled back.
func TestConsistentSurgesAreDenied(t *testing.T) {
	if testing.Short() {
		t.Skip("replays six investigators on four drawn worlds; skipped with -short")
	}
	ws := consistentSurgeWorlds(t)
	dir := t.TempDir()
	require.NoError(t, worldgen.Write(dir, ws))
	outs := evalFolder(t, dir, twinInvestigators)
	require.Len(t, outs, len(twinInvestigators)*len(ws))
	for _, o := range outs {
		require.Empty(t, o.Error, "%s %s", o.Investigator, o.Incident)
		require.Equal(t, "deny", o.Verdict, "%s %s: %s rolled back (failed %v)", o.Investigator, o.Incident, o.Diagnosis, o.FailedChecks)
	}
}
