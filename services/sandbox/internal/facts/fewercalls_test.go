package facts_test

import (
	"testing"
	"time"

	"agentk/services/sandbox/internal/facts"

	"github.com/stretchr/testify/require"
)

// fellSeries is 120 minutes of baseline and 30 since the onset of a callee
// with the given sampled requests and errors a minute before and since.
func fellSeries(req, errs, reqSince, errSince float64) ([]facts.Minute, facts.Onset) {
	t0 := time.Date(2026, 10, 23, 5, 0, 0, 0, time.UTC)
	var ms []facts.Minute
	for i := range 150 {
		m := facts.Minute{At: t0.Add(time.Duration(i) * time.Minute), Requests: req, Errors: errs, P95Ms: 30}
		if i >= 120 {
			m.Requests, m.Errors = reqSince, errSince
		}
		ms = append(ms, m)
	}
	at := t0.Add(120 * time.Minute)
	return ms, facts.Onset{At: &at, Signal: "error_rate", BaselineFrom: t0}
}

// TestFewerCallsNeedNoMoreFailures: a callee whose error rate doubled
// because it is called half as much, its failures a minute unchanged, is
// fewer calls; one whose failures rose too, or that is called as much, or
// whose series is too thin to rule a rise out, is not (it stays
// co-regressed). Kills mutant sandbox.downstream_fewer_calls.
func TestFewerCallsNeedNoMoreFailures(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name                          string
		req, errs, reqSince, errSince float64
		want                          bool
	}{
		{"called half as much, failures unchanged", 10, 0.8, 5, 0.8, true},
		{"called half as much, fewer failures", 10, 0.8, 5, 0.6, true},
		{"called half as much, failures doubled", 10, 0.8, 5, 1.6, false},
		{"called half as much, failures up 1.5x", 10, 0.8, 5, 1.2, false},
		{"called as much, error rate doubled", 10, 0.8, 10, 1.6, false},
		{"called 85% as much", 10, 0.8, 8.5, 0.8, false},
		{"too thin to rule a rise out", 10, 0.05, 5, 0.05, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ms, on := fellSeries(tc.req, tc.errs, tc.reqSince, tc.errSince)
			c := facts.CallsFellOf(ms, on)
			require.NotNil(t, c)
			require.Equal(t, tc.want, facts.FewerCalls(c))
		})
	}
	require.False(t, facts.FewerCalls(nil), "unmeasured (a p95 onset) is never fewer calls")
}
