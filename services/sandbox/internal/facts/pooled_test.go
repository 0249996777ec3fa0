package facts_test

import (
	"testing"
	"time"

	"agentk/services/sandbox/internal/facts"

	"github.com/stretchr/testify/require"
)

// series is an hour of minutes of 10 sampled requests, with errs(i) errors.
func series(errs func(i int) float64) []facts.Minute {
	var out []facts.Minute
	for i := 0; i < 60; i++ {
		out = append(out, facts.Minute{At: at(i), Requests: 10, Errors: errs(i), P95Ms: 20})
	}
	return out
}

func TestSums(t *testing.T) {
	t.Parallel()
	req, errs := facts.Sums(series(func(i int) float64 { return float64(i % 2) }))
	require.Equal(t, 600.0, req)
	require.Equal(t, 30.0, errs)
	req, errs = facts.Sums(nil)
	require.Zero(t, req)
	require.Zero(t, errs)
}

// TestBestErrorSplit: the split of a sparse error series that best divides
// it into a lower error rate and a higher one after, never after the alert;
// none when the rate only fell; a flat series' best split stays under
// PooledErrorLR.
func TestBestErrorSplit(t *testing.T) {
	t.Parallel()
	step := func(from int, n float64) func(int) float64 {
		return func(i int) float64 {
			if i >= from {
				return n
			}
			return 0
		}
	}
	tests := []struct {
		name        string
		ms          []facts.Minute
		alert       time.Time
		want        int
		significant bool
	}{
		{"5% of requests fail from minute 40", series(func(i int) float64 {
			if i >= 40 && i%2 == 0 {
				return 1
			}
			return 0
		}), at(59), 40, true},
		{"30% fail from minute 40", series(step(40, 3)), at(59), 40, true},
		{"the split is never after the alert", series(step(40, 3)), at(30), 30, true},
		{"errors that stopped: no higher stretch", series(func(i int) float64 { return 3 - step(20, 3)(i) }), at(59), -1, false},
		{"one error every ten minutes throughout", series(func(i int) float64 {
			if i%10 == 5 {
				return 1
			}
			return 0
		}), at(59), -2, false},
		{"no errors", series(func(int) float64 { return 0 }), at(59), -1, false},
		{"one minute", series(step(0, 3))[:1], at(59), -1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, lr := facts.BestErrorSplit(tt.ms, tt.alert)
			if tt.want != -2 {
				require.Equal(t, tt.want, s)
			}
			if s >= 0 {
				require.False(t, tt.ms[s].At.After(tt.alert))
			} else {
				require.Zero(t, lr)
			}
			require.Equal(t, tt.significant, lr >= facts.PooledErrorLR, "2·ΔlogL %v", lr)
		})
	}
}
