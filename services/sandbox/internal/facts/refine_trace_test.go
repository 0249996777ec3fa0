package facts

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// retriedRequests is one request every two seconds over a minute from at,
// each an entry span and attempts client spans 100 ms apart, all of one
// trace (none when traced is false); from failFrom seconds on every other
// request fails in all its spans.
func retriedRequests(at time.Time, attempts, failFrom int, traced bool) []SpanMark {
	var out []SpanMark
	for s := 0; s < 60; s += 2 {
		off := s >= failFrom && (s-failFrom)%4 == 0
		id := ""
		if traced {
			id = fmt.Sprintf("trace-%02d", s)
		}
		for a := 0; a <= attempts; a++ {
			out = append(out, SpanMark{At: at.Add(time.Duration(s)*time.Second + time.Duration(a)*100*time.Millisecond), Off: off, Trace: id})
		}
	}
	return out
}

// TestRefineCountsARequestOnce: the spans of one request (its entry span and
// a client span per attempt) are one observation of the baseline, not six.
// Half the requests fail from 30 s on: (1−½)^k ≤ 0.05 wants five quiet
// requests before the first failure, so the onset goes back five requests
// (to 20 s); counted as spans, five quiet spans are less than one request
// and the onset would stay at 29 s, later than RefineMiss allows. Spans with
// no trace id still count alone.
func TestRefineCountsARequestOnce(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 26, 11, 39, 0, 0, time.UTC)
	on := Onset{At: &at, Signal: "error_rate", ErrorThreshold: 0.05, BucketMinutes: 1}
	cases := []struct {
		name  string
		marks []SpanMark
		// want is the refined onset's offset from the bucket's start
		// (within a second).
		want time.Duration
	}{
		{"five attempts of one request are one quiet request", retriedRequests(at, 5, 30, true), 22 * time.Second},
		{"one span a request: as before", retriedRequests(at, 0, 30, true), 22 * time.Second},
		{"spans with no trace id count alone", retriedRequests(at, 5, 30, false), 29 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := RefineOnset(on, tc.marks)
			require.NotNil(t, got.At)
			require.WithinDuration(t, at.Add(tc.want), *got.At, time.Second, "refined to %s", got.At)
			require.False(t, got.At.After(*refineSpans(on, tc.marks).At), "later than counting spans")
		})
	}
}

// TestPerTraceOnlyMovesOnsetsEarlier: counting requests once can only move
// the refined onset earlier than counting spans (RefineOnset and RefineByOps
// keep the earlier of the two), never before the bucket's start; drawn over
// requests of one to six spans, some failing, some spans untraced.
func TestPerTraceOnlyMovesOnsetsEarlier(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 1, 10, 20, 0, 0, time.UTC)
	rnd := rand.New(rand.NewPCG(41, 7))
	moved := 0
	for draw := range 300 {
		on := Onset{At: &at, Signal: "error_rate", ErrorThreshold: 0.05, BucketMinutes: 1}
		failFrom := time.Duration(rnd.IntN(60)) * time.Second
		r, bg := 0.2+0.8*rnd.Float64(), 0.05*rnd.Float64()
		var marks []SpanMark
		for s := time.Duration(0); s < time.Minute; s += time.Duration(200+rnd.IntN(2000)) * time.Millisecond {
			p := bg
			if s >= failFrom {
				p = r
			}
			id := fmt.Sprintf("t%d", s)
			if rnd.Float64() < 0.1 {
				id = ""
			}
			for a := range 1 + rnd.IntN(6) {
				marks = append(marks, SpanMark{At: at.Add(s + time.Duration(a)*50*time.Millisecond), Off: rnd.Float64() < p, Trace: id, Ops: []string{[]string{"GET / Server", "db Client"}[a%2]}})
			}
		}
		marks = sortedMarks(marks)
		spans, got := refineSpans(on, marks), RefineOnset(on, marks)
		require.False(t, got.At.After(*spans.At), "draw %d: %s after %s", draw, got.At, spans.At)
		require.False(t, got.At.Before(at), "draw %d", draw)
		if got.At.Before(*spans.At) {
			moved++
		}
		ops := []string{"GET / Server"}
		byOps := RefineByOps(on, marks, ops)
		require.False(t, byOps.At.After(*refineByOps(on, marks, ops, refineSpans).At), "draw %d: by the operations", draw)
	}
	require.Positive(t, moved, "no draw moved: the test draws nothing grouping changes")
}

func sortedMarks(ms []SpanMark) []SpanMark {
	out := make([]SpanMark, len(ms))
	copy(out, ms)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].At.Before(out[j-1].At); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}
