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

// restartTwins are the held-out releases of e2e/incidents-heldout3 that ship
// on a whole minute with the ledger's container start 1.5 s after the
// marker: the onset's bucket holds no span of any version between the old
// version's last and the new version's first (the restart), so nothing
// sampled says whether the regression began before Docker started the
// container or after (e2e/incidents-heldout3's README, "Read on branch
// h43minute"; facts' TestRefineCannotPlaceARestartGapsStart).
var restartTwins = []string{
	"ho3-prompt-length-claims-digest",
	"ho3-retryablehttp-timeout-tariff-engine",
	"ho3-hedging-after-slow-episode-dispatch-router",
}

// TestRestartGapTwinsOfHeldout3AreDenied replays each of restartTwins as its
// twin: the same spans, logs, alert and ledger, the truth a deny. The twin's
// regression began on every version during the restart, after the marker
// and before the ledger's start (a provider's change, a flag flipped), and
// the new version served it from its first request: every span off is the
// new version's, as in the release. The release's root cause is kept, so
// persona:oracle claims it. No investigator may roll a twin back: an onset
// placed at the ledger's start, the new version's first span or anywhere in
// the restart gap would. The releases are missed rollbacks while this holds.
func TestRestartGapTwinsOfHeldout3AreDenied(t *testing.T) {
	if testing.Short() {
		t.Skip("replays the restart-gap twins of the heldout3 corpus; skipped with -short")
	}
	var incs []*incident.Incident
	for _, name := range restartTwins {
		inc, err := incident.Load(filepath.Join("incidents-heldout3", name))
		require.NoError(t, err)
		require.Equal(t, "allow", inc.Meta.Expect.Verdict, name)
		inc.Meta.ID += "-restart-twin"
		inc.Meta.Expect.Verdict = "deny"
		incs = append(incs, inc)
	}
	invs := append([]string{"rules", "persona:oracle", "persona:wrong"}, hostilePersonas()...)
	holdSafe(t, "heldout3-restart-twins", evalRetrying(t, incs, invs))
}
