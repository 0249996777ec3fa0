package replay

import (
	"bytes"
	"testing"
	"time"

	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// culpritOutcome fabricates a replay of an incident that expects verdict
// about the alerted service and want about the culprit (nil: no
// expect.culprit), where the pipeline decided verdict about the alerted
// service and got about another one (nil: no decision about another).
func culpritOutcome(verdict, expect string, got *Culprit, want *incident.Culprit) Outcome {
	return Outcome{Result: Result{Investigator: "rules", Incident: "i", Verdict: verdict, Culprit: got,
		Expect: Expectation{RootCause: "bad_release", Verdict: expect, Culprit: want}}}
}

func TestCulpritScoring(t *testing.T) {
	t.Parallel()
	payment := func(v string) *Culprit { return &Culprit{Service: "payment", Verdict: v} }
	want := func(svc, v string) *incident.Culprit { return &incident.Culprit{Service: svc, Verdict: v} }
	tests := []struct {
		name                string
		o                   Outcome
		bad, missed, met    bool
		expected            int
		culpritBad, culMiss int
	}{
		{name: "no culprit expected, none decided", o: culpritOutcome("deny", "deny", nil, nil)},
		{name: "allow on the expected culprit", o: culpritOutcome("deny", "deny", payment("allow"), want("payment", "allow")),
			met: true, expected: 1},
		{name: "deny where allow expected is missed", o: culpritOutcome("deny", "deny", payment("deny"), want("payment", "allow")),
			missed: true, expected: 1, culMiss: 1},
		{name: "no culprit decision where allow expected is missed", o: culpritOutcome("deny", "deny", nil, want("payment", "allow")),
			missed: true, expected: 1, culMiss: 1},
		{name: "allow where deny expected is bad", o: culpritOutcome("deny", "deny", payment("allow"), want("payment", "deny")),
			bad: true, expected: 1, culpritBad: 1},
		{name: "allow on another service is bad (and the expected one missed)", o: culpritOutcome("deny", "deny", payment("allow"), want("ledger", "allow")),
			bad: true, missed: true, expected: 1, culpritBad: 1, culMiss: 1},
		{name: "allow with no expect.culprit is bad", o: culpritOutcome("deny", "deny", payment("allow"), nil),
			bad: true, culpritBad: 1},
		{name: "deny with no expect.culprit is nothing", o: culpritOutcome("deny", "deny", payment("deny"), nil)},
		{name: "deny where deny expected is met", o: culpritOutcome("deny", "deny", payment("deny"), want("payment", "deny")),
			met: true, expected: 1},
		{name: "no decision where deny expected is met", o: culpritOutcome("deny", "deny", nil, want("payment", "deny")),
			met: true, expected: 1},
		{name: "deny of another service where deny expected is met", o: culpritOutcome("deny", "deny", &Culprit{Service: "ledger", Verdict: "deny"}, want("payment", "deny")),
			met: true, expected: 1},
		{name: "the alerted service's bad rollback still counts", o: culpritOutcome("allow", "deny", payment("allow"), want("payment", "allow")),
			bad: true, met: true, expected: 1},
		{name: "the alerted service's missed rollback still counts", o: culpritOutcome("deny", "allow", nil, want("payment", "deny")),
			missed: true, met: true, expected: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.bad, tc.o.BadRollback(), "bad rollback")
			require.Equal(t, tc.missed, tc.o.MissedRollback(), "missed rollback")
			require.Equal(t, tc.met, tc.o.CulpritMet(), "culprit met")
			s := Score([]Outcome{tc.o})
			require.Len(t, s.Rows, 1)
			r := s.Rows[0]
			require.Equal(t, tc.expected, r.CulpritExpected)
			require.Equal(t, map[bool]int{true: 1}[tc.met], r.CulpritMet)
			require.Equal(t, tc.culpritBad, r.CulpritBadRollbacks)
			require.Equal(t, tc.culMiss, r.CulpritMissedRollbacks)
			require.Equal(t, map[bool]int{true: 1}[tc.bad], r.BadRollbacks)
			require.Equal(t, map[bool]int{true: 1}[tc.missed], r.MissedRollbacks)
			require.Equal(t, !tc.bad, s.Safe, "a culprit bad rollback makes the eval unsafe")
		})
	}
}

// TestCulpritScoringErrors: a replay that failed meets no expect.culprit.
func TestCulpritScoringErrors(t *testing.T) {
	t.Parallel()
	o := culpritOutcome("deny", "deny", nil, &incident.Culprit{Service: "payment", Verdict: "deny"})
	o.Error = "stack not ready"
	r := Score([]Outcome{o}).Rows[0]
	require.Equal(t, 1, r.CulpritExpected)
	require.Zero(t, r.CulpritMet)
}

// TestCulpritMarkdown: the scoreboard shows the culprit rows only when some
// incident expects a culprit, met over expected per investigator.
func TestCulpritMarkdown(t *testing.T) {
	t.Parallel()
	outs := []Outcome{
		culpritOutcome("deny", "deny", &Culprit{Service: "payment", Verdict: "allow"}, &incident.Culprit{Service: "payment", Verdict: "allow"}),
		culpritOutcome("deny", "deny", nil, &incident.Culprit{Service: "payment", Verdict: "allow"}),
	}
	var b bytes.Buffer
	Markdown(&b, "c", outs, Score(outs), time.Time{})
	require.Contains(t, b.String(), "| rules | 1/2 | 0 | 1 |")
	require.Contains(t, b.String(), "culprit payment allow")

	b.Reset()
	plain := []Outcome{culpritOutcome("deny", "deny", nil, nil)}
	Markdown(&b, "c", plain, Score(plain), time.Time{})
	require.NotContains(t, b.String(), "The culprit (DESIGN.md rule 17)")
}
