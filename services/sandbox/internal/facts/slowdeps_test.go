package facts_test

import (
	"math"
	"testing"
	"time"

	"agentk/services/sandbox/internal/facts"

	"github.com/stretchr/testify/require"
)

// slowSeries is 40 minutes of baseline from t0 and 20 since t0+40m: calls
// per minute and p95 before and since; a peer that slowed starts its slow
// p95 at slowFrom minutes (40 unless set).
type slowSeries struct {
	calls, callsSince   float64
	p95, p95Since       float64
	slowFrom, firstCall int
}

func (s slowSeries) minutes(t0 time.Time) []facts.Minute {
	from := s.slowFrom
	if from == 0 {
		from = 40
	}
	var ms []facts.Minute
	for i := 0; i < 60; i++ {
		m := facts.Minute{At: t0.Add(time.Duration(i) * time.Minute), Requests: s.calls, P95Ms: s.p95 + float64(i%3)}
		if i >= 40 {
			m.Requests = s.callsSince
		}
		if i >= from {
			m.P95Ms = s.p95Since + float64(i%3)
		}
		if i < s.firstCall {
			m.Requests, m.P95Ms = 0, math.NaN()
		}
		ms = append(ms, m)
	}
	return ms
}

// SlowDependencies names a peer only when it was called before the onset,
// is called since at its usual rate, slowed at (or before) the onset and
// explains most of the entry spans' added p95. A release that slows the
// service's own code, a retry storm that multiplies the calls and a peer
// that slows later or by little are not named.
func TestSlowDependencies(t *testing.T) {
	t0 := time.Date(2026, 11, 10, 18, 0, 0, 0, time.UTC)
	at := t0.Add(40 * time.Minute)
	on := facts.Onset{At: &at, Signal: "error_rate", BaselineFrom: t0}
	entry := slowSeries{calls: 20, callsSince: 20, p95: 100, p95Since: 850}
	for _, tc := range []struct {
		name  string
		entry slowSeries
		peer  slowSeries
		want  []facts.SlowDependency
	}{
		{"vector index slowed at its usual rate (s6174-w037)", entry, slowSeries{calls: 20, callsSince: 20, p95: 66, p95Since: 821},
			[]facts.SlowDependency{{Peer: "vector-index", BeforeMs: 67, NowMs: 822}}},
		{"slowed six minutes before the errors placed the onset", entry, slowSeries{calls: 20, callsSince: 20, p95: 66, p95Since: 821, slowFrom: 34},
			[]facts.SlowDependency{{Peer: "vector-index", BeforeMs: 67, NowMs: 822}}},
		{"the release slowed the service's own code", entry, slowSeries{calls: 20, callsSince: 20, p95: 66, p95Since: 66}, nil},
		{"retry storm: calls tripled and slower", entry, slowSeries{calls: 20, callsSince: 60, p95: 66, p95Since: 821}, nil},
		{"slower by under half the added latency", entry, slowSeries{calls: 20, callsSince: 20, p95: 66, p95Since: 300}, nil},
		{"slowed ten minutes after the onset", entry, slowSeries{calls: 20, callsSince: 20, p95: 66, p95Since: 821, slowFrom: 50}, nil},
		{"never called before the onset", entry, slowSeries{calls: 20, callsSince: 20, p95: 66, p95Since: 821, firstCall: 40}, nil},
		{"the entry spans did not slow", slowSeries{calls: 20, callsSince: 20, p95: 100, p95Since: 100}, slowSeries{calls: 20, callsSince: 20, p95: 66, p95Since: 821}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			peers := map[string][]facts.Minute{"vector-index": tc.peer.minutes(t0)}
			got := facts.SlowDependencies(peers, tc.entry.minutes(t0), t0.Add(50*time.Minute), on)
			require.Equal(t, tc.want, got)
		})
	}
}

// EarliestWithSlowDependency moves the onset to where the calls to a slow
// dependency left their own baseline when that is earlier (s4343-w013: a
// retrieval index slowed at 16:26, the answer engine's sampled deadline
// errors placed its onset at 16:34 and a deploy at 16:31 read as coming
// first), keeps the service's baseline and thresholds, and never moves it
// later.
func TestSlowDependencyPlacesTheOnsetEarlier(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 10, 15, 15, 46, 0, 0, time.UTC)
	at := t0.Add(40 * time.Minute)
	alertAt := t0.Add(50 * time.Minute)
	on := facts.Onset{At: &at, Signal: "error_rate", BaselineFrom: t0, ErrorThreshold: 0.05, P95ThresholdMs: 2316, BucketMinutes: 1, Reason: "error_rate left its baseline"}
	entry := slowSeries{calls: 20, callsSince: 20, p95: 100, p95Since: 850, slowFrom: 32}.minutes(t0)
	calls := func(peer string) string { return "server.address = '" + peer + "'" }
	for _, tc := range []struct {
		name     string
		slowFrom int
		want     time.Time
	}{
		{"slowed eight minutes before the errors placed the onset", 32, t0.Add(32 * time.Minute)},
		{"slowed with the errors", 40, at},
		{"slowed after the errors", 43, at},
	} {
		t.Run(tc.name, func(t *testing.T) {
			peers := map[string][]facts.Minute{"doc-retriever": slowSeries{calls: 20, callsSince: 20, p95: 60, p95Since: 640, slowFrom: tc.slowFrom}.minutes(t0)}
			deps := facts.SlowDependencies(peers, entry, alertAt, on)
			require.Len(t, deps, 1)
			got := facts.EarliestWithSlowDependency(on, peers, deps, alertAt, calls)
			require.Equal(t, tc.want, *got.At)
			if tc.want.Equal(at) {
				require.Equal(t, on, got)
				return
			}
			require.Equal(t, "doc-retriever", got.Dependency)
			require.Equal(t, "server.address = 'doc-retriever'", got.OpFilter)
			require.Equal(t, "p95", got.Signal)
			require.Less(t, got.DependencyP95Ms, 200.0, "the calls' own threshold")
			require.Equal(t, on.P95ThresholdMs, got.P95ThresholdMs, "the service's thresholds stay")
			require.Equal(t, on.BaselineFrom, got.BaselineFrom)
		})
	}
	// No slow dependency: the onset is the service's.
	require.Equal(t, on, facts.EarliestWithSlowDependency(on, nil, nil, alertAt, calls))
}
