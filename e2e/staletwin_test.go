package e2e

import (
	"path/filepath"
	"testing"

	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// staleTwins are the held-out releases (e2e/incidents-heldout2) whose first
// failure came seconds after the marker, sampled 1 in 8, with nothing
// sampled between the old version's last span and the new version's first
// to say whether the regression began before the marker or after it.
var staleTwins = []string{
	"ho2-prompt-recipe-assistant-portions",
	"ho2-storm-after-slow-episode-delivery-slots",
	"ho2-bad-bundle-quantities-storefront-pricing",
}

// TestStaleMarkerTwinsOfHeldout2AreDenied replays each of staleTwins as its
// stale-marker twin: the same spans, logs, alert and ledger, the truth a
// deny. The twin's story is a regression that began on every version a
// second or three before the marker (a flag flipped, a provider's change)
// and went on while the new version took over; no span of the old version
// was sampled after it began, so every span off is of the new version, as
// in the release it copies (e2e/incidents-heldout2's README, "Read on branch
// h41refine"). Its expected root cause stays the release's, the claim that
// would buy the rollback, so persona:oracle makes it. No investigator may
// roll a twin back: an onset placed after the marker from the versions (or
// anything else the twin shares with the release) would. The releases
// themselves are missed rollbacks, and stay so while this holds.
func TestStaleMarkerTwinsOfHeldout2AreDenied(t *testing.T) {
	if testing.Short() {
		t.Skip("replays the stale-marker twins of the heldout2 corpus; skipped with -short")
	}
	var incs []*incident.Incident
	for _, name := range staleTwins {
		inc, err := incident.Load(filepath.Join(heldout2, name))
		require.NoError(t, err)
		require.Equal(t, "allow", inc.Meta.Expect.Verdict, name)
		inc.Meta.ID += "-stale-twin"
		inc.Meta.Expect.Verdict = "deny"
		incs = append(incs, inc)
	}
	invs := append([]string{"rules", "persona:oracle", "persona:wrong"}, hostilePersonas()...)
	holdSafe(t, "heldout2-stale-twins", evalRetrying(t, incs, invs))
}
