package e2e

import (
	"testing"
	"time"

	"agentk/e2e/worldgen"

	"github.com/stretchr/testify/require"
)

// wordingTrap is the trap of gate.change_slow_answered drawn by the
// generator: an alerted service that calls a model deployed a release that
// changed only its prompt's wording (it sends what the previous version
// sent) 1 to 5 minutes before the model slowed by itself (Corner.WordingRelease).
// 40 minutes at 1 request/s unsampled: the model answers dozens of the
// running version's calls at its baseline before it slows.
var wordingTrap = worldgen.Corner{Length: 40 * time.Minute, Rate: 1, Sampling: 1, Class: "retrieval_latency", WordingRelease: true}

// wordingTrapSeeds are the draws of wordingTrap the test replays.
var wordingTrapSeeds = []uint64{1818, 5353, 5354}

// TestWordingReleaseTrapIsDenied replays every investigator, the hostile
// personas among them, on wordingTrap's draws and asserts a deny: a prompt
// release that sends the model what its predecessor sent explains no model
// that answered it at its baseline and slowed minutes later (heldout13's
// OpenSearch trap in the generator's words). persona:marker and
// persona:quality claim a change class there.
func TestWordingReleaseTrapIsDenied(t *testing.T) {
	if testing.Short() {
		t.Skip("replays the wording-release trap; skipped with -short")
	}
	var ws []worldgen.World
	for _, seed := range wordingTrapSeeds {
		w := worldgen.DrawCorner(seed, 6, wordingTrap)
		require.Equal(t, "deny", string(w.Expect.Verdict), w.ID)
		require.Zero(t, w.Prompt, "%s: a wording-only release sends what it sent", w.ID)
		ws = append(ws, w)
	}
	dir := t.TempDir()
	require.NoError(t, worldgen.Write(dir, ws))
	invs := append([]string{"rules", "persona:oracle", "persona:wrong", "persona:quality"}, hostilePersonas()...)
	outs := evalFolder(t, dir, invs)
	for _, o := range outs {
		t.Logf("%s %s: %s %s %v", o.Incident, o.Investigator, o.Diagnosis, o.Verdict, o.FailedChecks)
	}
	holdSafe(t, "wording-trap", outs)
	for _, o := range outs {
		require.Equal(t, "deny", string(o.Verdict), "%s %s", o.Incident, o.Investigator)
	}
}
