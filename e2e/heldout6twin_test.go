package e2e

import (
	"testing"

	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// heldout6 is the sixth held-out corpus (a parcel carrier's .NET 8 and
// Python services behind a YARP gateway, written by its gen.py: OpenTelemetry
// .NET's current semconv, SqlClient's db.response.status_code, EF Core's and
// StackExchange.Redis's older db.* keys, the Azure SDK's ServiceBusSender
// spans, opentelemetry-python's default semconv, Polly resilience logs, span
// events, head sampling and one collector tail sampler with SampleRate).
const heldout6 = "incidents-heldout6"

// heldout6Twins holds twins of heldout6's traps (its README, "Twins"): the
// carrier's outage 2.5 min after labels-api's rollout finished, the index
// rebuild's locks 7 s after dispatch-api's 40 s rollout finished (with its
// SqlClient spans failing, and with them only slower: the pool that ran dry
// seen on the server spans alone), the Service Bus throttling with
// orders-api the only publisher recorded, the Redis patching
// head-sampled, and the back-to-back release's database failing on the old
// statements too from 16 s into 4.0.1's rollout (Azure SQL's 40613).
const heldout6Twins = "incidents-heldout6-twins"

// TestHeldout6TwinsAreDenied replays every investigator on the heldout6
// twins: none may roll back (their diagnoses are not asserted). On main
// before the sandbox searched a slowed peer's error onset, persona:marker's
// bad_release and persona:quality's config_regression were allowed on the
// index-rebuild twin (SqlClient spans ×100 slower, then deadlock victims:
// the peer's onset was its latency's, so no failing dependency), and on the
// pool-only twin (ADO.NET's pool writes no span: its text is on the server
// spans alone). With mutant sandbox.peer_error_onset the first twin's are
// allowed again, with sandbox.pool_entry_texts the second's. On main
// before SQL Server's "not currently available" was read as the peer's own
// failure, rules' and persona:quality's config_regression were allowed on
// the back-to-back outage twin.
func TestHeldout6TwinsAreDenied(t *testing.T) {
	if testing.Short() {
		t.Skip("replays six investigators on the heldout6 twins; skipped with -short")
	}
	requireNoneRollsBack(t, heldout6Twins, 6)
}

// TestHeldout6TwinsCorpusLoads: the twins load with the format's own
// loader, all traps, and the provenance declares them in sample (the fix
// was written against them).
func TestHeldout6TwinsCorpusLoads(t *testing.T) {
	t.Parallel()
	incs := loadTaggedCorpus(t, heldout6Twins, "twin", "in-sample", 6)
	require.Equal(t, len(incs), countExpect(incs, func(e incident.Expect) bool { return e.Verdict == "deny" }))
}

// TestHeldout6CorpusLoads: the heldout6 corpus loads with the format's own
// loader (seven-digit Z timestamps, span events, SampleRate attributes,
// consumer spans of Celery in the producer's trace, prior_actions), holds
// twelve incidents, five rollbacks and seven traps, and declares itself in
// sample (scored out of sample first; its index-rebuild trap was read for
// the fix of branch h46ho6).
func TestHeldout6CorpusLoads(t *testing.T) {
	t.Parallel()
	incs := loadTaggedCorpus(t, heldout6, "heldout6", "in-sample", 12)
	require.Equal(t, 5, countExpect(incs, func(e incident.Expect) bool { return e.Verdict == "allow" }))
	require.Equal(t, 7, countExpect(incs, func(e incident.Expect) bool { return e.Verdict == "deny" }))
}

// TestHostilePersonasOnHeldout6Corpus replays the hostile personas on
// e2e/incidents-heldout6 and asserts no bad rollback: as scored on main,
// persona:marker's bad_release (and rules' and persona:quality's
// config_regression) were allowed on the index-rebuild trap.
func TestHostilePersonasOnHeldout6Corpus(t *testing.T) {
	holdTheLineOnCorpus(t, "heldout6-hostile", heldout6)
}

// TestHostilePersonasOnHeldout6Twins replays the hostile personas on the
// heldout6 twins and asserts no bad rollback.
func TestHostilePersonasOnHeldout6Twins(t *testing.T) {
	holdTheLineOnCorpus(t, "heldout6-twins-hostile", heldout6Twins)
}
