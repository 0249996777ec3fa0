package facts_test

import (
	"slices"
	"testing"
	"time"

	"agentk/services/sandbox/internal/facts"

	"github.com/stretchr/testify/require"
)

// TestRefineByOpsNeverPassesAFailure: refined over the spans of the
// operation that departed (POST /pay, failing from 40 s on) the onset moves
// past the database spans that never fail; a failing span of another
// operation at 6 s keeps the bound over every span (it is at most 6 s).
// Kills mutant sandbox.refine_ops_cap.
func TestRefineByOpsNeverPassesAFailure(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 10, 23, 7, 20, 0, 0, time.UTC)
	pay, db, other := []string{"POST /pay Server", "route /pay"}, []string{"SELECT Client"}, []string{"GET /status Server"}
	marks := func(otherOff bool) []facts.SpanMark {
		var ms []facts.SpanMark
		at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
		for s := 1; s < 40; s += 3 {
			ms = append(ms, facts.SpanMark{At: at(s), Ops: db})
		}
		for s := 2; s < 40; s += 3 {
			ms = append(ms, facts.SpanMark{At: at(s), Ops: pay})
		}
		ms = append(ms, facts.SpanMark{At: at(6), Off: otherOff, Ops: other})
		for s := 40; s < 120; s += 4 {
			ms = append(ms, facts.SpanMark{At: at(s), Off: s%8 == 0, Ops: pay}, facts.SpanMark{At: at(s + 1), Ops: db})
		}
		sortMarks(ms)
		return ms
	}
	on := facts.Onset{At: &t0, Signal: "error_rate", ErrorThreshold: 0.05}
	ops := []string{"POST /pay Server"}

	clean := marks(false)
	all, by := facts.RefineOnset(on, clean), facts.RefineByOps(on, clean, ops)
	require.True(t, by.At.After(*all.At), "over the failing operation's spans: %s, over every span: %s", by.At, all.At)
	require.True(t, by.At.After(t0.Add(20*time.Second)) && !by.At.After(t0.Add(40*time.Second)), by.At)
	require.Contains(t, by.Refined, "over the spans of POST /pay Server")

	early := marks(true)
	got := facts.RefineByOps(on, early, ops)
	require.Equal(t, facts.RefineOnset(on, early).At, got.At)
	require.False(t, got.At.After(t0.Add(6*time.Second)), "a failure of another operation at 6 s is never passed: %s", got.At)

	require.Equal(t, facts.RefineOnset(on, clean).At, facts.RefineByOps(on, clean, nil).At, "no departed operation: every span")
}

func sortMarks(ms []facts.SpanMark) {
	slices.SortStableFunc(ms, func(a, b facts.SpanMark) int { return a.At.Compare(b.At) })
}
