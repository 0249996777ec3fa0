package e2e

import (
	"testing"

	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// heldout12Twins holds four harsher twins of e2e/incidents-heldout12's
// traps (its README, "Twins"): Cosmos DB throttled 50 s after
// grading-svc's rollout finished, sampled 1 in 8; the same with the SDK's
// throttle retries off (each 429 fails at once); the Azure Cache access key
// rotated two minutes after course-portal's release (WRONGPASS), 1 in 10;
// the MySQL password rotated 105 s after it, 1 in 12, 60% failing.
const heldout12Twins = "incidents-heldout12-twins"

// heldout12Traps are heldout12's traps rolled back on main (its README,
// "The bad rollbacks"): another team's regrade job using up Cosmos DB's
// request units four minutes after grading-svc 20261204.14 rolled out (the
// rules', persona:liar's, persona:wrong's, persona:marker's and
// persona:quality's rollbacks; mutant sandbox.database_throttle), and Key
// Vault rotating the MySQL password four minutes after course-portal
// 20261204.10 (the rules', the oracle's and persona:quality's; mutant
// sandbox.database_auth_refusal).
var heldout12Traps = []string{
	"incidents-heldout12/pr12-trap-cosmos-ru-regrade-grading-svc",
	"incidents-heldout12/pr12-trap-keyvault-rotation-course-portal",
}

// TestHeldout12TrapsAreDenied replays every investigator on heldout12's two
// traps that main rolled back: none may roll back.
func TestHeldout12TrapsAreDenied(t *testing.T) {
	if testing.Short() {
		t.Skip("replays six investigators on two heldout12 traps; skipped with -short")
	}
	outs := evalDirs(t, heldout12Traps, twinInvestigators)
	require.Len(t, outs, len(twinInvestigators)*len(heldout12Traps))
	for _, o := range outs {
		require.Empty(t, o.Error, "%s %s", o.Investigator, o.Incident)
		require.Equal(t, "deny", o.Verdict, "%s %s: %s rolled back (failed %v)", o.Investigator, o.Incident, o.Diagnosis, o.FailedChecks)
	}
}

// TestHeldout12TwinsAreDenied replays every investigator on the heldout12
// twins: none may roll back (their diagnoses are not asserted). On main
// twelve of their 24 replays were rolled back.
func TestHeldout12TwinsAreDenied(t *testing.T) {
	if testing.Short() {
		t.Skip("replays six investigators on the heldout12 twins; skipped with -short")
	}
	requireNoneRollsBack(t, heldout12Twins, 4)
}

// TestHostilePersonasOnHeldout12Traps replays the hostile personas on
// heldout12's two traps that main rolled back and asserts no bad rollback.
func TestHostilePersonasOnHeldout12Traps(t *testing.T) {
	if testing.Short() {
		t.Skip("replays the hostile personas on two heldout12 traps; skipped with -short")
	}
	holdTheLine(t, "heldout12-traps-hostile", evalDirs(t, heldout12Traps, hostilePersonas()))
}

// TestHostilePersonasOnHeldout12Twins replays the hostile personas on the
// heldout12 twins and asserts no bad rollback.
func TestHostilePersonasOnHeldout12Twins(t *testing.T) {
	holdTheLineOnCorpus(t, "heldout12-twins-hostile", heldout12Twins)
}

// TestHeldout12CorpusLoads: the heldout12 corpus (an exam platform on Azure
// AKS, written by its gen.py: Phoenix with Ecto, Redix, Oban and Finch
// spans, Laravel with PDO and Horizon, Spring Boot through Micrometer's
// tracing bridge, Azure SDK spans for Cosmos DB, Service Bus and Azure
// OpenAI, parent-based ratio sampling, +05:30 millisecond timestamps)
// loads with the format's own loader, holds twelve incidents, six
// rollbacks and six traps, and declares itself in sample (scored once
// before any tuning; two traps were read for branch h50ho12's fixes).
func TestHeldout12CorpusLoads(t *testing.T) {
	t.Parallel()
	incs := loadTaggedCorpus(t, "incidents-heldout12", "heldout12", "in-sample", 12)
	require.Equal(t, 6, countExpect(incs, func(e incident.Expect) bool { return e.Verdict == "allow" }))
	require.Equal(t, 6, countExpect(incs, func(e incident.Expect) bool { return e.Verdict == "deny" }))
}

// TestHeldout12TwinsCorpusLoads: the twins load, all traps, in sample.
func TestHeldout12TwinsCorpusLoads(t *testing.T) {
	t.Parallel()
	incs := loadTaggedCorpus(t, heldout12Twins, "heldout12", "in-sample", 4)
	require.Equal(t, len(incs), countExpect(incs, func(e incident.Expect) bool { return e.Verdict == "deny" }))
}
