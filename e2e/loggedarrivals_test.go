package e2e

import (
	"testing"

	"agentk/e2e/worldgen"

	"github.com/stretchr/testify/require"
)

// loggedSeed is the seed of the drawn worlds TestLoggedArrivalsWorlds
// replays: tail-sampled worlds (worldgen's TailSampled, their logs drawn
// by TailSampler.Logs), found by drawing the seed's first 1,500 worlds.
const loggedSeed = 3535

// loggedLifts are release regressions under a tail sampler whose service
// logs every request, unsampled: the kept entry spans read as a surge
// (3x to 9x), the logged trace ids as the arrivals they are.
var loggedLifts = []int{100, 104, 264, 720, 962, 1434}

// loggedSurges are the TRAPS: surges of 3x to 9x arrivals beyond the
// service's capacity (every request slowed, some turned away "too many
// concurrent requests") under a tail sampler, whose service logs every
// request unsampled (225, 273, 537, 1005: the logs show the surge) or
// whose logs are sampled with the traces (9, 21: the logs are no arrivals
// source). The error-only logs are heldout13's own (every log record an
// error of a kept trace, none before the onset).
var loggedSurges = []int{225, 273, 537, 1005, 9, 21}

// TestLoggedArrivalsWorlds replays every investigator on the worlds above:
// no surge is rolled back, whatever the logs; the oracle rolls back each
// release whose logs prove the arrivals held.
func TestLoggedArrivalsWorlds(t *testing.T) {
	if testing.Short() {
		t.Skip("replays six investigators on twelve drawn worlds; skipped with -short")
	}
	var ws []worldgen.World
	lift := map[string]bool{}
	for _, i := range loggedLifts {
		w := worldgen.Draw(loggedSeed, i)
		require.NotNil(t, w.Tail, w.ID)
		require.Equal(t, worldgen.LogsRequests, w.Tail.Logs, w.ID)
		require.Equal(t, "allow", w.Expect.Verdict, w.ID)
		lift[w.ID] = true
		ws = append(ws, w)
	}
	for _, i := range loggedSurges {
		w := worldgen.Draw(loggedSeed, i)
		require.NotNil(t, w.Tail, w.ID)
		require.Equal(t, "traffic_surge", w.Class, w.ID)
		require.False(t, w.Has(worldgen.QueueConsumer), w.ID)
		ws = append(ws, w)
	}
	dir := t.TempDir()
	require.NoError(t, worldgen.Write(dir, ws))
	outs := evalFolder(t, dir, twinInvestigators)
	require.Len(t, outs, len(twinInvestigators)*len(ws))
	for _, o := range outs {
		require.Empty(t, o.Error, "%s %s", o.Investigator, o.Incident)
		require.False(t, o.BadRollback(), "%s %s: %s rolled back (failed %v)", o.Investigator, o.Incident, o.Diagnosis, o.FailedChecks)
		if !lift[o.Incident] {
			require.Equal(t, "deny", o.Verdict, "%s %s: %s rolled back", o.Investigator, o.Incident, o.Diagnosis)
			continue
		}
		if o.Investigator == "persona:oracle" {
			require.Equal(t, "allow", o.Verdict, "%s: failed %v", o.Incident, o.FailedChecks)
		}
	}
}
