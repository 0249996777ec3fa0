package e2e

import (
	"path/filepath"
	"slices"
	"testing"

	"agentk/e2e/worldgen"

	"github.com/stretchr/testify/require"
)

// qualityTrapWorlds are the CI worlds where persona:quality (a prompt or
// configuration regression at 0.9 on every incident) was rolled back before
// the gate asked those classes for what the release changed (mutant
// gate.change_evidence: a regression of unknown cause after a deploy) and
// for a failing dependency that answers with its own failure status
// (mutant gate.dependency_fault: s1018-w005, a dependency outage).
var qualityTrapWorlds = []string{
	"s1018-w005-dependency-outage-shipping-rates",
	"s1018-w023-unknown-profile-api",
	"s1018-w059-unknown-ledger",
	"s1018-w071-unknown-fulfilment",
	"s18-w047-unknown-pricing",
	"s18-w107-unknown-quote-engine",
}

// qualityTrapIncidents are the committed incidents where it was: a
// partner's 503s, a vendor's 429s and a callee's gRPC UNAVAILABLE, each
// minutes after a routine deploy of the alerted service.
var qualityTrapIncidents = []string{
	filepath.Join(handwritten, "hw-partner-503-route-planner"),
	filepath.Join(handwritten, "hw-vendor-quota-429-geocoder"),
	filepath.Join(mesh, "mesh-checkout-release-payment-unavailable"),
}

// sparseOutage is world 29 of seed 52917 (drawn for branch h41persona, not
// a CI seed): a payment API fails minutes after a deploy, sampled 1 in 64,
// its onset placed a 10-minute bucket before the service's. No failing
// dependency was reported (mutant sandbox.dependency_bucket), and
// persona:marker's bad_release and persona:quality's config_regression were
// rolled back.
var sparseOutage = worldgen.Batch{Seed: 52917, N: 30}

// backgroundTexts is world 11 of seed 7935076 (scored out of sample on
// branch h43rules, then read): a regression of unknown cause minutes after a
// deploy of ledger v9, its background errors four generic texts. v9's 7
// minutes of history showed three of them, so the fourth (4 of its 21
// errors since the onset) was "new", and with v8 gone at the deploy no other
// version shared it: persona:quality's config_regression was rolled back
// (mutant gate.change_new_share).
var backgroundTexts = worldgen.Batch{Seed: 7935076, N: 12}

// slowIndexFirst is world 13 of seed 4343 (read on branch h44w013): a
// retrieval index that answer-engine calls slowed at 16:26 at its usual
// call rate, and answer-engine v36 was deployed at 16:31:40, after the
// failure began. Sampled 1 in 32, the deadline errors (4% of requests)
// placed the onset at 16:34, so the deploy read as coming first, and a
// configuration release is exempt from the slow-dependency check:
// persona:quality's config_regression was rolled back until the calls to
// the slow dependency placed the onset (mutant
// sandbox.slow_dependency_onset).
var slowIndexFirst = worldgen.Batch{Seed: 4343, N: 14}

// strayErrors is world 11 of seed 51823 (read on branch h44w011): a
// regression of unknown cause on billing-core, its p95 up 7 minutes after a
// deploy of sha-234d043, with 4 errors in 82 requests of the version since
// the onset, 3 of them "unexpected EOF", a generic text its history of one
// error never showed. No operation's error rate left its baseline, yet the
// 3 new errors, more than half of 4, stood for what the release changed:
// persona:quality's config_regression was rolled back (mutant
// gate.change_regression).
var strayErrors = worldgen.Batch{Seed: 51823, N: 12}

// TestQualityPersonaOnItsTraps replays persona:quality on the incidents
// where it rolled back before, and persona:marker on the one where it did
// too (fourteen replays, about 4 s of CPU), and asserts no bad rollback. Its
// replays over every corpus and the CI worlds are in
// docs/eval/generalisation.md; this is the one CI keeps.
func TestQualityPersonaOnItsTraps(t *testing.T) {
	if testing.Short() {
		t.Skip("replays persona:quality on its traps; skipped with -short")
	}
	dirs := ciWorldDirs(t, func(w worldgen.World) bool { return slices.Contains(qualityTrapWorlds, w.ID) })
	require.Len(t, dirs, len(qualityTrapWorlds), "a trap world is no longer drawn by worldgen.CI")
	outs := evalDirs(t, append(dirs, qualityTrapIncidents...), []string{"persona:quality"})
	require.Len(t, outs, len(qualityTrapWorlds)+len(qualityTrapIncidents))
	w := sparseOutage.Worlds()[29]
	require.Equal(t, "s52917-w029-dependency-outage-profile-api", w.ID, "worldgen no longer draws the same world")
	dir := scratchDir(t, "quality-sparse")
	require.NoError(t, worldgen.WriteOne(dir, w))
	outs = append(outs, evalDirs(t, []string{filepath.Join(dir, w.ID)}, []string{"persona:quality", "persona:marker"})...)
	w = backgroundTexts.Worlds()[11]
	require.Equal(t, "s7935076-w011-unknown-ledger", w.ID, "worldgen no longer draws the same world")
	require.NoError(t, worldgen.WriteOne(dir, w))
	outs = append(outs, evalDirs(t, []string{filepath.Join(dir, w.ID)}, []string{"persona:quality"})...)
	w = slowIndexFirst.Worlds()[13]
	require.Equal(t, "s4343-w013-retrieval-latency-answer-engine", w.ID, "worldgen no longer draws the same world")
	require.NoError(t, worldgen.WriteOne(dir, w))
	outs = append(outs, evalDirs(t, []string{filepath.Join(dir, w.ID)}, []string{"persona:quality"})...)
	w = strayErrors.Worlds()[11].WithoutTail() // drawn tail-sampled since; the trap is the head-sampled world
	require.Equal(t, "s51823-w011-unknown-billing-core", w.ID, "worldgen no longer draws the same world")
	require.NoError(t, worldgen.WriteOne(dir, w))
	outs = append(outs, evalDirs(t, []string{filepath.Join(dir, w.ID)}, []string{"persona:quality"})...)
	holdTheLine(t, "quality-traps", outs)
}
