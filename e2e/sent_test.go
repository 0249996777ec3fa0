package e2e

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// sentCorpus is e2e/incidents-sent (its gen.py and README): the sizes a
// release asks of a slowed dependency. One rollback, the corner world
// s1818-c00's prompt regression with v18's prompts 1,500 tokens longer
// from its first call (gate.change_slow_answered's denial lifted by
// facts.SentChanges), and two traps on heldout13-twins' OpenSearch trap:
// catalog 3.8.0-1 sending another peer 4x larger bodies, and sending the
// slowed peer itself a longer timeout and its version in the user agent
// (no size: mutants sandbox.sent_size_only and sandbox.quality_request).
const sentCorpus = "incidents-sent"

// TestSentCorpus replays every investigator on e2e/incidents-sent: the
// traps are denied by every one of them, and the oracle, the rules and
// persona:quality roll the longer prompt back.
func TestSentCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("replays six investigators on three incidents; skipped with -short")
	}
	outs := evalFolder(t, sentCorpus, twinInvestigators)
	require.Len(t, outs, 3*len(twinInvestigators))
	rolled := map[string]bool{}
	for _, o := range outs {
		require.Empty(t, o.Error, "%s %s", o.Investigator, o.Incident)
		require.False(t, o.BadRollback(), "%s %s: %s rolled back (failed %v)", o.Investigator, o.Incident, o.Diagnosis, o.FailedChecks)
		if o.Verdict == "allow" {
			rolled[o.Investigator+" "+o.Incident] = true
		}
	}
	for _, inv := range []string{"persona:oracle", "rules", "persona:quality"} {
		require.True(t, rolled[inv+" sent-prompt-longer-slowed-later-summarizer"], "%s did not roll the longer prompt back", inv)
	}
}
