package e2e

import (
	"testing"

	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// heldout16 is the sixteenth held-out corpus (its README): a regional
// hospital's logistics system on VMs, Ansible rolling releases two hosts at
// a time, semver versions with build metadata, Java services under the
// OpenTelemetry Java agent (no status message on a failing server or
// consumer span, Kafka consumers that link to their producer) sampled 1 in
// 20 at the root, .NET 8 services sampled always. Main held every trap with
// every investigator and missed every right rollback (deny, the safe
// failure; the README's four mechanisms).
const heldout16 = "incidents-heldout16"

// heldout16Allowed are the right rollbacks each investigator meets: none
// on main at e7bcb0c nor on branch h54ho16 (the README says why). A lift
// adds its incident and investigators here, so that no later change loses
// it silently.
var heldout16Allowed = map[string][]string{}

// TestHeldout16NoBadRollback replays every investigator on the heldout16
// corpus: none may roll back a trap, nor allow a culprit decision the
// incident does not expect (none did on main), and the right rollbacks of
// heldout16Allowed stay met.
func TestHeldout16NoBadRollback(t *testing.T) {
	if testing.Short() {
		t.Skip("replays six investigators on the heldout16 corpus; skipped with -short")
	}
	requireHeldoutVerdicts(t, heldout16, 13, heldout16Allowed)
}

// TestHostilePersonasOnHeldout16Corpus replays the hostile personas on the
// heldout16 corpus and asserts no bad rollback.
func TestHostilePersonasOnHeldout16Corpus(t *testing.T) {
	holdTheLineOnCorpus(t, "heldout16-hostile", heldout16)
}

// TestHeldout16CorpusLoads: the heldout16 corpus (written by its gen.py:
// host.name per VM, AWX's marker and task spans, versions such as
// 4.12.0+build.871, Oracle and PostgreSQL JDBC spans under Hibernate's,
// Kafka consumer spans with links and no parent, .NET route templates
// without a leading slash, Polly's resend counts, microsecond -05:00
// timestamps) loads with the format's own loader, holds thirteen
// incidents, five rollbacks and eight traps (one with a culprit to roll
// back), and declares itself out of sample (scored once before any
// tuning; nothing was tuned on it).
func TestHeldout16CorpusLoads(t *testing.T) {
	t.Parallel()
	incs := loadTaggedCorpus(t, heldout16, "heldout16", "out-of-sample", 13)
	require.Len(t, incs, 13)
	require.Equal(t, 5, countExpect(incs, func(e incident.Expect) bool { return e.Verdict == "allow" }))
	require.Equal(t, 8, countExpect(incs, func(e incident.Expect) bool { return e.Verdict == "deny" }))
	require.Equal(t, 1, countExpect(incs, func(e incident.Expect) bool { return e.Culprit != nil && e.Culprit.Verdict == "allow" }))
}
