package e2e

import (
	"testing"

	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// heldout13Twins holds four twins of e2e/incidents-heldout13's traps (its
// README, "Twins"), kept 1 in 4 or 5 by trace id instead of the corpus's
// tail sampling: a partner certificate expiring 70 s after pricing's last
// VM was upgraded (the oracle's and persona:quality's rollbacks on main;
// mutant sandbox.tls_certificate_refusal), an OpenSearch data node leaving
// three minutes after catalog's release (persona:quality's; mutant
// gate.change_slow_answered), PgBouncer's pool cut by another team, and
// one VM's disk filling 25 s after a Capistrano switch.
const heldout13Twins = "incidents-heldout13-twins"

// heldout13Traps are heldout13's own traps whose twins main rolled back:
// under the corpus's tail sampling the load check denied them on main, and
// they are replayed to keep the reading of their certificate and their
// slow search engine from allowing a rollback there.
var heldout13Traps = []string{
	"incidents-heldout13/pr13-trap-client-cert-expired-pricing",
	"incidents-heldout13/pr13-trap-opensearch-yellow-catalog",
}

// TestHeldout13TrapsAreDenied replays every investigator on heldout13's two
// traps whose twins main rolled back: none may roll back.
func TestHeldout13TrapsAreDenied(t *testing.T) {
	if testing.Short() {
		t.Skip("replays six investigators on two heldout13 traps; skipped with -short")
	}
	outs := evalDirs(t, heldout13Traps, twinInvestigators)
	require.Len(t, outs, len(twinInvestigators)*len(heldout13Traps))
	for _, o := range outs {
		require.Empty(t, o.Error, "%s %s", o.Investigator, o.Incident)
		require.Equal(t, "deny", o.Verdict, "%s %s: %s rolled back (failed %v)", o.Investigator, o.Incident, o.Diagnosis, o.FailedChecks)
	}
}

// TestHeldout13TwinsAreDenied replays every investigator on the heldout13
// twins: none may roll back (their diagnoses are not asserted). On main
// three of their 24 replays were rolled back.
func TestHeldout13TwinsAreDenied(t *testing.T) {
	if testing.Short() {
		t.Skip("replays six investigators on the heldout13 twins; skipped with -short")
	}
	requireNoneRollsBack(t, heldout13Twins, 4)
}

// TestHostilePersonasOnHeldout13Twins replays the hostile personas on the
// heldout13 twins and asserts no bad rollback.
func TestHostilePersonasOnHeldout13Twins(t *testing.T) {
	holdTheLineOnCorpus(t, "heldout13-twins-hostile", heldout13Twins)
}

// TestHeldout13CorpusLoads: the heldout13 corpus (an agricultural co-op
// marketplace on on-premises VMs, written by its gen.py: Rails with the old
// HTTP conventions and no service.version, Go and Kotlin services with deb
// and RPM package versions, Capistrano and Ansible markers, PgBouncer,
// Redis, OpenSearch, Kafka consumers, a self-hosted vLLM; collector tail
// sampling; -03:00 timestamps) loads with the format's own loader, holds
// twelve incidents, five rollbacks and seven traps, and declares itself in
// sample (scored once before any tuning; its twins were read for branch
// h51ho13's fixes).
func TestHeldout13CorpusLoads(t *testing.T) {
	t.Parallel()
	incs := loadTaggedCorpus(t, "incidents-heldout13", "heldout13", "in-sample", 12)
	require.Equal(t, 5, countExpect(incs, func(e incident.Expect) bool { return e.Verdict == "allow" }))
	require.Equal(t, 7, countExpect(incs, func(e incident.Expect) bool { return e.Verdict == "deny" }))
}

// TestHeldout13TwinsCorpusLoads: the twins load, all traps, in sample.
func TestHeldout13TwinsCorpusLoads(t *testing.T) {
	t.Parallel()
	incs := loadTaggedCorpus(t, heldout13Twins, "heldout13", "in-sample", 4)
	require.Equal(t, len(incs), countExpect(incs, func(e incident.Expect) bool { return e.Verdict == "deny" }))
}
