package facts

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"agentk/services/sandbox/internal/signoz"

	"github.com/stretchr/testify/require"
)

// bucketSpans draws one span a second over a one-minute bucket from at: a
// share bg failing before failAt, a share r failing from it on; a stray
// failing span at each second of stray.
func bucketSpans(at time.Time, failAt time.Duration, r, bg float64, stray ...time.Duration) []SpanMark {
	rnd := rand.New(rand.NewPCG(7, 11))
	var out []SpanMark
	for s := time.Duration(0); s < time.Minute; s += time.Second {
		p := bg
		if s >= failAt {
			p = r
		}
		off := rnd.Float64() < p
		for _, x := range stray {
			off = off || s == x
		}
		out = append(out, SpanMark{At: at.Add(s + 250*time.Millisecond), Off: off})
	}
	return out
}

// TestRefineOnset: the onset moves later only as far as enough on-baseline
// spans precede the first failing one after the rise; never earlier than the
// bucket's start; a stray error of the baseline is not the start.
func TestRefineOnset(t *testing.T) {
	t.Parallel()
	at := time.Date(2025, 9, 23, 7, 43, 0, 0, time.UTC)
	on := Onset{At: &at, Signal: "error_rate", ErrorThreshold: 0.05, BucketMinutes: 1, Reason: "error_rate left its baseline"}
	cases := []struct {
		name  string
		on    Onset
		marks []SpanMark
		// want is the refined onset's offset from the bucket's start (within
		// a second), -1 for unknown.
		want time.Duration
	}{
		// All failing from 33 s on: r = 1, one on-baseline span is enough.
		{"a release that fails every request from 33 s", on, bucketSpans(at, 33*time.Second, 1, 0), 32*time.Second + 250*time.Millisecond},
		// Half failing: k = ⌈ln 0.05 / ln 0.5⌉ = 5 spans before the first failure.
		{"half failing from 20 s goes back five spans", on, spansAt(at, 20), 15*time.Second + 250*time.Millisecond},
		{"the first span fails: the bucket's start", on, bucketSpans(at, 0, 1, 0), 0},
		{"nothing fails: the bucket's start", on, bucketSpans(at, time.Hour, 1, 0), 0},
		{"too few spans before the first failure: the bucket's start", on, spansAt(at, 3), 0},
		// A stray error of the baseline does not stand for the start: the
		// split puts the regression where the share off rises.
		{"a stray error before the regression is not its start", on, spansAt(at, 30, 4), 25*time.Second + 250*time.Millisecond},
		// Errors clustered just before the regression count as its start:
		// five on-baseline spans before the first of them.
		{"errors clustered before the regression are its start", on, spansAt(at, 30, 22, 24, 27), 17*time.Second + 250*time.Millisecond},
		// A regression that worsened (one span in six off from 6 s, half
		// from 40 s) started at its first stage: the bucket's start stays.
		{"a regression that worsened starts at its first stage", on, spansAt(at, 40, 6, 12, 18, 24, 30, 36), 0},
		// Scattered errors with no rise: no significant split, and the first
		// one is too early to move anything.
		{"no rise: the bucket's start", on, spansAt(at, 60, 2, 17, 33, 48), 0},
		{"an unknown onset stays unknown", Onset{Signal: "error_rate"}, bucketSpans(at, 30*time.Second, 1, 0), -1},
		{"no spans", on, nil, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := RefineOnset(tc.on, tc.marks)
			if tc.want < 0 {
				require.Nil(t, got.At)
				return
			}
			require.NotNil(t, got.At)
			// The posterior quantile lies within a second of the span
			// the rule of thumb (k spans back, (1−r)^k ≤ 0.05) names.
			require.WithinDuration(t, at.Add(tc.want), *got.At, time.Second)
			require.False(t, got.At.Before(*tc.on.At), "never earlier than the bucket's start")
			if tc.want > time.Second {
				require.Contains(t, got.Refined, "refined from")
			}
		})
	}
}

// spansAt is one span a second from at for a minute, on-baseline for the
// first n, then alternately failing and not (a share of one half), with
// stray failing spans at the seconds listed.
func spansAt(at time.Time, n int, stray ...int) []SpanMark {
	var out []SpanMark
	for s := 0; s < 60; s++ {
		off := s >= n && (s-n)%2 == 0 || slices.Contains(stray, s)
		out = append(out, SpanMark{At: at.Add(time.Duration(s)*time.Second + 250*time.Millisecond), Off: off})
	}
	return out
}

// TestOnsetMarks: spans are judged by the onset's signal (an error, or a
// duration at the p95 threshold), rows without a time are skipped, and the
// marks come out sorted whatever order SigNoz answered in.
func TestOnsetMarks(t *testing.T) {
	t.Parallel()
	at := time.Date(2025, 9, 23, 7, 43, 0, 0, time.UTC)
	row := func(s int, err bool, ms float64) signoz.RawRow {
		return signoz.RawRow{Timestamp: at.Add(time.Duration(s) * time.Second), Data: map[string]any{"has_error": err, "duration_nano": ms * 1e6, "trace_id": "t" + string(rune('0'+s))}}
	}
	rows := []signoz.RawRow{row(3, false, 900), row(1, true, 10), {Data: map[string]any{"has_error": true}}, row(2, false, 100)}
	rows[1].Data["service.version"] = "2.1.0" // a selected resource field comes back flat
	errs := OnsetMarks(Onset{Signal: "error_rate"}, rows)
	require.Equal(t, []SpanMark{{at.Add(time.Second), true, nil, "t1", "2.1.0"}, {at.Add(2 * time.Second), false, nil, "t2", ""}, {at.Add(3 * time.Second), false, nil, "t3", ""}}, errs)
	slow := OnsetMarks(Onset{Signal: "p95", P95ThresholdMs: 500}, rows)
	require.Equal(t, []SpanMark{{at.Add(time.Second), false, nil, "t1", "2.1.0"}, {at.Add(2 * time.Second), false, nil, "t2", ""}, {at.Add(3 * time.Second), true, nil, "t3", ""}}, slow)
	// A slow dependency's calls are judged by their own threshold, not the
	// service's.
	calls := OnsetMarks(Onset{Signal: "p95", P95ThresholdMs: 500, Dependency: "doc-retriever", DependencyP95Ms: 50}, rows)
	require.Equal(t, []SpanMark{{at.Add(time.Second), false, nil, "t1", "2.1.0"}, {at.Add(2 * time.Second), true, nil, "t2", ""}, {at.Add(3 * time.Second), true, nil, "t3", ""}}, calls)
}

// TestRefineLeavesPooledOnsets: the refinement reads the spans of the first
// buckets after an onset; a pooled onset placed before a margins' departure
// (traffic-surge-01: errors rising at 10:08, p95 at 10:10) was moved by them
// to 10:10:49, past the departure's own onset (10:10:00). A pooled onset is
// not refined.
func TestRefineLeavesPooledOnsets(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 29, 10, 8, 0, 0, time.UTC)
	var marks []SpanMark
	for s := range 180 {
		marks = append(marks, SpanMark{At: at.Add(time.Duration(s) * time.Second), Off: s >= 170 && s%2 == 0})
	}
	on := Onset{At: &at, Signal: "error_rate", ErrorThreshold: 0.05, Pooled: true}
	require.Equal(t, at, *RefineOnset(on, marks).At)
	on.Pooled = false
	require.True(t, RefineOnset(on, marks).At.After(at.Add(2*time.Minute)), "the same spans move an onset of the margins")
}

// TestRefineReadsTheShiftedValue: a value_share onset is refined from the
// spans' values (the first span carrying the new value), spans without the
// attribute saying nothing; the refinement never moves it earlier.
func TestRefineReadsTheShiftedValue(t *testing.T) {
	at := synthEnd.Add(-20 * time.Minute)
	on := Onset{At: &at, Signal: "value_share", QualityKey: "app.prompt.template", QualityValue: "answer-3252", BucketMinutes: 1}
	row := func(after time.Duration, value string) signoz.RawRow {
		d := map[string]any{"timestamp": at.Add(after).Format(time.RFC3339Nano)}
		if value != "" {
			d["attributes_string"] = map[string]any{"app.prompt.template": value}
		}
		return signoz.RawRow{Data: d}
	}
	rows := []signoz.RawRow{row(2*time.Second, ""), row(10*time.Second, "answer-3252"), row(20*time.Second, "answer-3252"), row(30*time.Second, "answer-3252")}
	marks := OnsetMarks(on, rows)
	require.Len(t, marks, 3, "the span without the attribute says nothing")
	require.True(t, marks[0].Off)
	got := RefineOnset(on, marks)
	require.True(t, got.At.After(at), "refined %v", got.At)
	require.False(t, got.At.After(at.Add(10*time.Second)))
}
