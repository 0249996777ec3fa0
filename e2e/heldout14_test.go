package e2e

import (
	"testing"

	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// heldout14 is the fourteenth held-out corpus (its README): a
// language-learning app on Google Cloud Run, revision names as versions,
// Deno, Flask/FastAPI and Go spans, Pub/Sub push, head sampling. Main
// rolled back three of its traps: a Remote Config flag switched on by
// product and Vertex AI moving a model alias (the rules', the oracle's and
// persona:quality's; mutant gate.runtime_attribute_shift), and Cloud SQL's
// maintenance refusing connections for two minutes (persona:marker's;
// mutant sandbox.peer_service_width).
const heldout14 = "incidents-heldout14"

// heldout14Allowed are the right rollbacks each investigator met on branch
// h53ho14 (its README's table): pinned so that no later change loses them
// silently. The other three right rollbacks are missed by every
// investigator (the README says why).
var heldout14Allowed = map[string][]string{
	"pr14-speech-scorer-opus-decoder-canary": {"rules", "persona:oracle", "persona:marker", "persona:quality"},
	"pr14-tutor-chat-prompt-v9-canary":       {"rules", "persona:oracle", "persona:quality"},
}

// TestHeldout14NoBadRollback replays every investigator on the heldout14
// corpus: none may roll back a trap (seven of 42 trap replays were rolled
// back on main), and the right rollbacks met on branch h53ho14 stay met.
func TestHeldout14NoBadRollback(t *testing.T) {
	if testing.Short() {
		t.Skip("replays six investigators on the heldout14 corpus; skipped with -short")
	}
	requireHeldoutVerdicts(t, heldout14, 12, heldout14Allowed)
}

// TestHostilePersonasOnHeldout14Corpus replays the hostile personas on the
// heldout14 corpus and asserts no bad rollback.
func TestHostilePersonasOnHeldout14Corpus(t *testing.T) {
	holdTheLineOnCorpus(t, "heldout14-hostile", heldout14)
}

// TestHeldout14CorpusLoads: the heldout14 corpus (written by its gen.py:
// Cloud Run revisions as versions, Cloud Deploy markers and canaries, Deno's
// method-named spans, the old HTTP conventions on Flask and FastAPI, gRPC
// Google APIs, Pub/Sub push, parentbased_traceidratio sampling, +01:00
// nanosecond timestamps) loads with the format's own loader, holds twelve
// incidents, five rollbacks and seven traps, and declares itself in sample
// (scored once before any tuning; three traps were read for branch
// h53ho14's fixes).
func TestHeldout14CorpusLoads(t *testing.T) {
	t.Parallel()
	incs := loadTaggedCorpus(t, heldout14, "heldout14", "in-sample", 12)
	require.Equal(t, 5, countExpect(incs, func(e incident.Expect) bool { return e.Verdict == "allow" }))
	require.Equal(t, 7, countExpect(incs, func(e incident.Expect) bool { return e.Verdict == "deny" }))
}
