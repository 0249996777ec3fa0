package facts_test

import (
	"testing"

	"agentk/contracts"
	"agentk/services/sandbox/internal/facts"

	"github.com/stretchr/testify/require"
)

// poolSeries is an hour of a service's pool spans: 30 a minute, p95 2 ms in
// the baseline; from minute 50 (the onset) on, failing a minute and with a
// p95 of since ms. spike puts one 500 ms minute in the baseline; before
// puts 9 failing pool spans a minute ahead of baselineFrom.
type poolSeries struct {
	failing     float64
	since       float64
	spike       bool
	beforeStart bool
}

const poolOnset, poolFrom = 50, 10

func (p poolSeries) responses(t *testing.T) (all, failing ser, p95 ser) {
	p95s := minutes(0, 60, func(i int) float64 {
		switch {
		case i >= poolOnset:
			return p.since * 1e6
		case p.spike && i == 30:
			return 500e6
		}
		return 2e6
	})
	fails := minutes(poolOnset, 60, func(int) float64 { return p.failing })
	if p.beforeStart {
		for i := 0; i < poolFrom; i++ {
			fails[i] = 9
		}
	}
	return ser{nil, 0, flat(0, 60, 30)}, ser{nil, 0, fails}, ser{nil, 1, p95s}
}

// TestPoolWaits: the pool spans since the onset and in its baseline
// (never before the baseline began), their failures, the median of their
// per-minute p95 (one slow minute does not move it) and the entry spans'
// errors since the onset; nil when the service wrote no pool span.
func TestPoolWaits(t *testing.T) {
	t.Parallel()
	f := func(v float64) *float64 { return &v }
	// Entry errors: 4 a minute since the onset, and 3 before it (not counted).
	var entry []facts.VersionErrors
	for i := 45; i < 60; i++ {
		n := 3.0
		if i >= poolOnset {
			n = 4
		}
		entry = append(entry, facts.VersionErrors{Version: "v2", Signature: "TimeoutError", TS: at(i).UnixMilli(), N: n})
	}
	tests := []struct {
		name string
		p    poolSeries
		want contracts.PoolWaits
	}{
		{"the pool runs dry", poolSeries{failing: 15, since: 2000},
			contracts.PoolWaits{Spans: 300, Failed: 150, BaselineSpans: 1200, EntryErrors: 40, P95Ms: f(2000), BaselineP95Ms: f(2)}},
		{"the pool waits longer, nothing fails", poolSeries{since: 400},
			contracts.PoolWaits{Spans: 300, BaselineSpans: 1200, EntryErrors: 40, P95Ms: f(400), BaselineP95Ms: f(2)}},
		{"the pool is healthy", poolSeries{since: 2},
			contracts.PoolWaits{Spans: 300, BaselineSpans: 1200, EntryErrors: 40, P95Ms: f(2), BaselineP95Ms: f(2)}},
		{"one slow minute in the baseline", poolSeries{since: 2, spike: true},
			contracts.PoolWaits{Spans: 300, BaselineSpans: 1200, EntryErrors: 40, P95Ms: f(2), BaselineP95Ms: f(2)}},
		{"failures before the baseline began", poolSeries{since: 2, beforeStart: true},
			contracts.PoolWaits{Spans: 300, BaselineSpans: 1200, EntryErrors: 40, P95Ms: f(2), BaselineP95Ms: f(2)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			all, failing, p95 := tt.p.responses(t)
			got, err := facts.PoolWaits(response(t, all, p95), response(t, failing), entry, at(poolOnset), at(poolFrom))
			require.NoError(t, err)
			require.NotNil(t, got)
			require.Equal(t, tt.want, *got)
		})
	}

	t.Run("no pool span", func(t *testing.T) {
		t.Parallel()
		got, err := facts.PoolWaits(response(t), response(t), entry, at(poolOnset), at(poolFrom))
		require.NoError(t, err)
		require.Nil(t, got)
	})
	t.Run("pool spans only before the baseline", func(t *testing.T) {
		t.Parallel()
		got, err := facts.PoolWaits(response(t, ser{nil, 0, flat(0, poolFrom, 30)}), response(t), entry, at(poolOnset), at(poolFrom))
		require.NoError(t, err)
		require.Nil(t, got)
	})
	t.Run("not a time series", func(t *testing.T) {
		t.Parallel()
		_, err := facts.PoolWaits(rawResponse(), response(t), nil, at(poolOnset), at(poolFrom))
		require.ErrorIs(t, err, facts.ErrBadResponse)
	})
}
