package facts_test

import (
	"math"
	"testing"

	"agentk/services/sandbox/internal/facts"

	"github.com/stretchr/testify/require"
)

func TestRound(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want float64 }{
		{1.23449, 1.234}, {1.2345001, 1.235}, {-0.0004, 0}, {2, 2}, {math.Inf(1), math.Inf(1)},
	} {
		require.Equal(t, tc.want, facts.Round(tc.in), "%v", tc.in)
	}
	require.True(t, math.IsNaN(facts.Round(math.NaN())))
}

func TestMedian(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		in   []float64
		want float64
	}{
		{"odd", []float64{5, 1, 3}, 3},
		{"even", []float64{4, 1, 3, 2}, 2.5},
		{"one outlier moves nothing", []float64{10, 10, 11, 10, 1000}, 10},
		{"one", []float64{7}, 7},
	} {
		in := append([]float64(nil), tc.in...)
		require.Equal(t, tc.want, facts.Median(in), tc.name)
		require.Equal(t, tc.in, in, "%s: the input is not reordered", tc.name)
	}
	require.True(t, math.IsNaN(facts.Median(nil)))
}
