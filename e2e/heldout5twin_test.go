package e2e

import (
	"testing"

	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// heldout5Twins holds twins of e2e/incidents-heldout5's traps (its README,
// "twins"): the clearing house's outage 2.5 min after payments-gateway
// 3.9.2 finished rolling out, its calls Micrometer's (client.name, status
// "503"); the month-end batch's locks draining loans-api's Hikari pool 3 s
// after a rolling update of 6.4.0 finished, the pool seen only in the JDBC
// connection spans' "HikariPool-1 - Connection is not available" (no pool
// attribute, no db.system).
const heldout5Twins = "incidents-heldout5-twins"

// TestHeldout5TwinsAreDenied replays every investigator on the heldout5
// twins: none may roll back (their diagnoses are not asserted). On main
// before the sandbox read Micrometer's peers and the pools' exhaustion
// texts, rules' and persona:marker's bad_release and persona:quality's
// config_regression were allowed on both (six bad rollbacks): every failure
// since the rollout is the new version's. With mutant
// sandbox.micrometer_calls the clearing twin's are allowed again (no failing
// dependency); with sandbox.pool_texts the loans twin's (no pool span).
func TestHeldout5TwinsAreDenied(t *testing.T) {
	if testing.Short() {
		t.Skip("replays six investigators on the heldout5 twins; skipped with -short")
	}
	requireNoneRollsBack(t, heldout5Twins, 2)
}

// TestHeldout5TwinsCorpusLoads: the twins load with the format's own
// loader, all traps, and the provenance declares them in sample (the fix
// was written against them).
func TestHeldout5TwinsCorpusLoads(t *testing.T) {
	t.Parallel()
	incs := loadTaggedCorpus(t, heldout5Twins, "twin", "in-sample", 2)
	require.Equal(t, len(incs), countExpect(incs, func(e incident.Expect) bool { return e.Verdict == "deny" }))
}

// TestHostilePersonasOnHeldout5Twins replays the hostile personas on the
// heldout5 twins and asserts no bad rollback.
func TestHostilePersonasOnHeldout5Twins(t *testing.T) {
	holdTheLineOnCorpus(t, "heldout5-twins-hostile", heldout5Twins)
}
