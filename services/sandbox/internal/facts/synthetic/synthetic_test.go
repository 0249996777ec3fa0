package synthetic_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"agentk/services/sandbox/internal/facts/synthetic"

	"github.com/stretchr/testify/require"
)

// TestMinutes: the same seed draws the same series; errors are 0.5% before
// the onset and 30% from it; a gap has no minutes; the p95 signal leaves
// the errors alone.
func TestMinutes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name         string
		s            synthetic.Series
		before, from float64
		p95From      float64
	}{
		{"errors", synthetic.Series{Length: 3 * time.Hour, Rate: 20, Sampling: 1, Onset: 2 * time.Hour, Signal: "error_rate", GapAt: time.Hour, GapFor: 10 * time.Minute}, 0.005, 0.3, 120},
		{"p95", synthetic.Series{Length: 3 * time.Hour, Rate: 20, Sampling: 1, Onset: 2 * time.Hour, Signal: "p95"}, 0.005, 0.005, 700},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ms := tt.s.Minutes(7)
			require.Equal(t, ms, tt.s.Minutes(7))
			var req, errs [2]float64
			var p95 [2][]float64
			for _, m := range ms {
				off := m.At.Sub(synthetic.End.Add(-tt.s.Length))
				require.False(t, tt.s.GapFor > 0 && off >= tt.s.GapAt && off < tt.s.GapAt+tt.s.GapFor, "a minute in the gap")
				i := 0
				if !m.At.Before(tt.s.OnsetAt()) {
					i = 1
				}
				req[i], errs[i], p95[i] = req[i]+m.Requests, errs[i]+m.Errors, append(p95[i], m.P95Ms)
			}
			require.InDelta(t, tt.before, errs[0]/req[0], 0.003)
			require.InDelta(t, tt.from, errs[1]/req[1], 0.03)
			require.InDelta(t, tt.p95From, p95[1][len(p95[1])/2], 0.1*tt.p95From)
			require.Len(t, ms, int(tt.s.Length/time.Minute-tt.s.GapFor/time.Minute))
		})
	}
	require.InDelta(t, 1000, synthetic.Poisson(rand.New(rand.NewPCG(1, 2)), 1000), 150)
	require.InDelta(t, 300, synthetic.Binomial(rand.New(rand.NewPCG(1, 2)), 1000, 0.3), 60)
	require.Zero(t, synthetic.Binomial(rand.New(rand.NewPCG(1, 2)), 1000, 0))
}
