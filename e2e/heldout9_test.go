package e2e

import (
	"testing"

	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// heldout9Twins holds four harsher twins of e2e/incidents-heldout9's traps
// (its README, "Twins"): the flag flipped 35 s after loyalty-svc's rollout
// finished, sampled 1 in 15; the re-emitted marker with a fresh deployment
// id 38 s before the Cassandra node stalls; the GDS throttling (429) 40 s
// after ticketing-worker's release; kb-search's release 25 s after
// agent-desk's.
const heldout9Twins = "incidents-heldout9-twins"

// heldout9Traps are heldout9's two traps rolled back on main (its README,
// "The bad rollbacks"): a feature flag switched on at runtime three and a
// half minutes after loyalty-svc 6.0.3 rolled out (the rules', the
// oracle's, persona:marker's and persona:quality's rollbacks; mutants
// gate.runtime_config_change, sandbox.config_change_logs), and eu-west-1
// failing over to eu-central-1 two minutes after booking-api 12.1.2's
// multiregion deploy (persona:marker's and persona:quality's; mutants
// gate.region_shift, sandbox.region_traffic).
var heldout9Traps = []string{
	"incidents-heldout9/fb9-trap-flag-flip-no-release-loyalty-svc",
	"incidents-heldout9/fb9-trap-region-failover-booking-api",
}

// TestHeldout9TrapsAreDenied replays every investigator on heldout9's two
// traps that main rolled back: none may roll back.
func TestHeldout9TrapsAreDenied(t *testing.T) {
	if testing.Short() {
		t.Skip("replays six investigators on two heldout9 traps; skipped with -short")
	}
	outs := evalDirs(t, heldout9Traps, twinInvestigators)
	require.Len(t, outs, len(twinInvestigators)*len(heldout9Traps))
	for _, o := range outs {
		require.Empty(t, o.Error, "%s %s", o.Investigator, o.Incident)
		require.Equal(t, "deny", o.Verdict, "%s %s: %s rolled back (failed %v)", o.Investigator, o.Incident, o.Diagnosis, o.FailedChecks)
	}
}

// TestHeldout9TwinsAreDenied replays every investigator on the heldout9
// twins: none may roll back (their diagnoses are not asserted). On main the
// fast flag flip was rolled back by the rules, the oracle, persona:marker
// and persona:quality (mutant gate.runtime_config_change).
func TestHeldout9TwinsAreDenied(t *testing.T) {
	if testing.Short() {
		t.Skip("replays six investigators on the heldout9 twins; skipped with -short")
	}
	requireNoneRollsBack(t, heldout9Twins, 4)
}

// TestHostilePersonasOnHeldout9Traps replays the hostile personas on
// heldout9's two traps that main rolled back and asserts no bad rollback.
func TestHostilePersonasOnHeldout9Traps(t *testing.T) {
	if testing.Short() {
		t.Skip("replays the hostile personas on two heldout9 traps; skipped with -short")
	}
	holdTheLine(t, "heldout9-traps-hostile", evalDirs(t, heldout9Traps, hostilePersonas()))
}

// TestHeldout9CorpusLoads: the heldout9 corpus (a ticketing platform on
// AWS under Nomad, written by its gen.py: Quarkus and Ktor with the newest
// semconv, flagd span events, Temporal workers, a periodic job with only
// INTERNAL spans, a migration job as a service, one marker per region,
// microsecond +00:00 timestamps) loads with the format's own loader, holds
// twelve incidents, six rollbacks and six traps, and declares itself in
// sample (scored once before any tuning; two traps were read for branch
// h48ho9's fixes).
func TestHeldout9CorpusLoads(t *testing.T) {
	t.Parallel()
	incs := loadTaggedCorpus(t, "incidents-heldout9", "heldout9", "in-sample", 12)
	require.Equal(t, 6, countExpect(incs, func(e incident.Expect) bool { return e.Verdict == "allow" }))
	require.Equal(t, 6, countExpect(incs, func(e incident.Expect) bool { return e.Verdict == "deny" }))
}

// TestHeldout9TwinsCorpusLoads: the twins load, all traps, in sample.
func TestHeldout9TwinsCorpusLoads(t *testing.T) {
	t.Parallel()
	incs := loadTaggedCorpus(t, heldout9Twins, "heldout9", "in-sample", 4)
	require.Equal(t, len(incs), countExpect(incs, func(e incident.Expect) bool { return e.Verdict == "deny" }))
}
