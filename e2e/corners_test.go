package e2e

import (
	"testing"
	"time"

	"agentk/e2e/worldgen"

	"github.com/stretchr/testify/require"
)

// corners are the edges of issue 18's ranges (recordings of 20 min to 24 h,
// 0.1 to 500 requests/s, sampling 1/1 to 1/100) that one replay can hold.
// 500 requests/s unsampled is 30,000 traces a minute and is left to the
// sandbox's own test of the series (TestFindOnsetAcrossRecordings), and so is
// 500 requests/s over 24 h at 1/100 (430,000 traces).
var corners = []worldgen.Corner{
	{Length: 20 * time.Minute, Rate: 0.1, Sampling: 1, Class: "prompt_regression"},
	// 0.06 stored traces a minute: under the documented minimum, deny.
	{Length: 20 * time.Minute, Rate: 0.1, Sampling: 100, Class: "bad_release"},
	{Length: 20 * time.Minute, Rate: 500, Sampling: 100, Class: "config_regression"},
	// Baseline 6 min, need 10: deny, and the evidence says so.
	{Length: 20 * time.Minute, Rate: 500, Sampling: 100, Baseline: 6 * time.Minute, Class: "bad_release"},
	{Length: 24 * time.Hour, Rate: 0.1, Sampling: 1, Class: "config_regression"},
	// 86 traces in a day, half of one since the onset: deny.
	{Length: 24 * time.Hour, Rate: 0.1, Sampling: 100, Class: "bad_release"},
}

// TestCornerWorlds replays a world at each corner with the oracle: the
// verdict is the right one — allow where the recording holds the documented
// minimum of evidence (worldgen's enoughEvidence), deny where it does not —
// and nothing is rolled back that should not be.
func TestCornerWorlds(t *testing.T) {
	if testing.Short() {
		t.Skip("replays six drawn worlds; skipped with -short")
	}
	var ws []worldgen.World
	allow := 0
	for i, c := range corners {
		w := worldgen.DrawCorner(1818, i, c)
		if w.Expect.Verdict == "allow" {
			allow++
		}
		ws = append(ws, w)
	}
	require.Equal(t, 3, allow, "three corners hold enough evidence for a rollback, three do not")
	dir := t.TempDir()
	require.NoError(t, worldgen.Write(dir, ws))
	outs := evalFolder(t, dir, []string{"persona:oracle"})
	for _, o := range outs {
		t.Logf("%s: %s %s %v (expected %s %v)", o.Incident, o.Diagnosis, o.Verdict, o.FailedChecks, o.Expect.Verdict, o.Expect.FailedChecks)
	}
	for _, o := range outs {
		require.Empty(t, o.Error, o.Incident)
		require.False(t, o.BadRollback(), "%s: a bad rollback", o.Incident)
		if why, known := knownCornerMisses[o.Incident]; known {
			require.NotEqual(t, o.Expect.Verdict, o.Verdict, "%s meets its verdict now: remove it from knownCornerMisses", o.Incident)
			t.Logf("KNOWN MISS %s: %s (failed %v): %s", o.Incident, o.Verdict, o.FailedChecks, why)
			continue
		}
		require.Equal(t, o.Expect.Verdict, o.Verdict, "%s: failed %v", o.Incident, o.FailedChecks)
	}
}

// knownCornerMisses are corners whose right rollback the oracle does not get
// yet (deny where allow is expected: the safe failure), each with why. A
// listed corner that meets its verdict fails the test, so the list shrinks.
var knownCornerMisses = map[string]string{
	// s1818-c04-config-regression-quote-engine (a thin operation's onset in
	// the gap before its first failure, 23:10, the marker at 23:11:32) is
	// placed since an operation's onset moves to where its new errors'
	// version first served (tools.VersionPlaced).
	//
	// Since h51ho13's gate.change_slow_answered (session 21): a prompt or
	// configuration release explains no dependency that answered at least 5
	// of the running version's calls in whole minutes after the release,
	// with no other version serving, before it slowed. This corner's prompt
	// regression slows api.openai.com 3.5 minutes after v18 started (the
	// generator's onset delay), after 8 calls of v18 answered at the
	// baseline: the same telemetry as heldout13's OpenSearch trap (a data
	// node leaving 3 minutes after catalog's release), whose
	// persona:quality config_regression was rolled back without the check.
	// Traded for the trap, the safe failure. Since h52prompt (session 22)
	// the denial is lifted when the running version's calls asked the
	// slowed peer for more from their first (facts.SentChanges): this
	// corner's v18 sends the model prompts drawn as v17's (worldgen's
	// genAIAttrs draws input tokens whatever the version; z -0.4 on its 35
	// and 8 calls), so nothing it sends tells it from the trap, and it
	// stays (e2e/incidents-sent holds it with longer prompts, allowed).
	// Since h53prompt (session 23) worldgen draws what a prompt release
	// sends (prompt.go): this corner draws a longer template, 578 tokens
	// more on every call of v18 (median 1,285 -> 1,874 over v18's calls),
	// but the 8 calls v18 made before the model slowed do not reach the
	// one-sided z 3.09 facts.SentChanges asks ("asked no more than before"
	// in the gate's reason): too few calls to tell 1.4x from chance, and it
	// stays.
	"s1818-c00-prompt-regression-summarizer": "a prompt regression whose LLM slowed 3.5 min after the release, after answering 8 of its calls at the baseline: gate.change_slow_answered cannot tell it from a dependency that slowed by itself (heldout13-twins' OpenSearch trap); v18's template is 578 tokens longer, but its 8 calls before the slowing are too few for facts.SentChanges to tell 1.4x from chance",
}
