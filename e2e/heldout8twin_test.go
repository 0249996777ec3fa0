package e2e

import (
	"testing"

	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// heldout8Twins holds six twins of e2e/incidents-heldout8's traps and
// rollbacks (its README, "Twins"): the Spanner instance answering UNAVAILABLE with
// otelgrpc's attempt spans under the client library's spans, the same
// during a slower rollout, Cloud Storage answering 503 backendError to Go's
// storage client 70 s after receipts-go 2.6.0 rolled out (Google Cloud's
// client libraries write their own spans with gcp.client.service, no host
// and the internal kind), Memorystore's failover sampled 1 in 40 with
// 40 s of refused connections before the timeouts, and two twins of the
// Argo canary rollback in which an outside cause (a rates feed) fails
// every version from 8 s after the canary's start or 10 s before it (the
// version-confined onset, facts.RefineByVersion, must not read them as the
// canary's).
const heldout8Twins = "incidents-heldout8-twins"

// TestHeldout8TwinsAreDenied replays every investigator on the heldout8
// twins: none may roll back (their diagnoses are not asserted). On main
// before the sandbox named a Google Cloud client library's span's peer by
// gcp.client.service (and read those internal spans as calls out),
// persona:marker's bad_release and persona:quality's config_regression
// were allowed on the mid-rollout Spanner twin, and the rules',
// persona:marker's and persona:quality's on the Cloud Storage twin (five
// bad rollbacks; mutant sandbox.gcp_client_peers); before it read how a
// failing dependency began failing, the rules' and persona:quality's
// config_regression on the Memorystore twin (two; mutant
// sandbox.faults_at_onset).
func TestHeldout8TwinsAreDenied(t *testing.T) {
	if testing.Short() {
		t.Skip("replays six investigators on the heldout8 twins; skipped with -short")
	}
	requireNoneRollsBack(t, heldout8Twins, 6)
}

// TestHeldout8CorpusLoads: the heldout8 corpus (a payments platform on
// GCP, written by its gen.py: Rails and Sidekiq through opentelemetry-ruby,
// Rust through tracing-opentelemetry with an rdkafka consumer, Go with
// Google Cloud's client library spans, Argo canaries holding a weight,
// nanosecond timestamps) loads with the format's own loader, holds twelve
// incidents, six rollbacks and six traps, and declares itself in sample
// (scored once before any tuning; its Spanner and Memorystore traps were
// read for branch h47ho8's fixes, TestHeldout8TrapsAreDenied).
func TestHeldout8CorpusLoads(t *testing.T) {
	t.Parallel()
	incs := loadTaggedCorpus(t, "incidents-heldout8", "heldout8", "in-sample", 12)
	require.Equal(t, 6, countExpect(incs, func(e incident.Expect) bool { return e.Verdict == "allow" }))
	require.Equal(t, 6, countExpect(incs, func(e incident.Expect) bool { return e.Verdict == "deny" }))
}

// TestHeldout8TwinsCorpusLoads: the twins load with the format's own
// loader, all traps, and the provenance declares it in sample (the fix was
// checked against it).
func TestHeldout8TwinsCorpusLoads(t *testing.T) {
	t.Parallel()
	incs := loadTaggedCorpus(t, heldout8Twins, "twin", "in-sample", 6)
	require.Equal(t, len(incs), countExpect(incs, func(e incident.Expect) bool { return e.Verdict == "deny" }))
}

// TestHostilePersonasOnHeldout8Corpus replays the hostile personas on
// e2e/incidents-heldout8 and asserts no bad rollback: as scored on main
// before h47ho8, persona:marker's bad_release and persona:quality's
// config_regression were allowed on its Spanner trap, and persona:quality's
// on its Memorystore failover.
func TestHostilePersonasOnHeldout8Corpus(t *testing.T) {
	holdTheLineOnCorpus(t, "heldout8-hostile", "incidents-heldout8")
}

// TestHostilePersonasOnHeldout8Twins replays the hostile personas on the
// heldout8 twins and asserts no bad rollback.
func TestHostilePersonasOnHeldout8Twins(t *testing.T) {
	holdTheLineOnCorpus(t, "heldout8-twins-hostile", heldout8Twins)
}

// heldout8Traps are heldout8's two traps rolled back on main (its README,
// "The bad rollbacks"), replayed by TestHeldout8TrapsAreDenied with every
// investigator after TestHostilePersonasOnHeldout8Corpus replayed the
// hostile personas on the whole corpus (laterInvestigators).
var heldout8Traps = []string{
	"incidents-heldout8/qh8-trap-spanner-unavailable-accounts-go",
	"incidents-heldout8/qh8-trap-memorystore-failover-session-web",
}

// TestHeldout8TrapsAreDenied replays every investigator on heldout8's two
// traps that were rolled back on main (its README, "The bad rollbacks"):
// persona:marker's bad_release and persona:quality's config_regression on
// the Spanner instance answering UNAVAILABLE (mutant
// sandbox.gcp_client_peers), the rules' and persona:quality's
// config_regression on Memorystore's failover (mutant
// sandbox.faults_at_onset).
func TestHeldout8TrapsAreDenied(t *testing.T) {
	if testing.Short() {
		t.Skip("replays six investigators on two heldout8 traps; skipped with -short")
	}
	outs := evalDirs(t, heldout8Traps, twinInvestigators)
	require.Len(t, outs, len(twinInvestigators)*len(heldout8Traps))
	for _, o := range outs {
		require.Empty(t, o.Error, "%s %s", o.Investigator, o.Incident)
		require.Equal(t, "deny", o.Verdict, "%s %s: %s rolled back (failed %v)", o.Investigator, o.Incident, o.Diagnosis, o.FailedChecks)
	}
}
