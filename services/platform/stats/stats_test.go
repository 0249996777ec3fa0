package stats_test

import (
	"testing"

	"agentk/platform/stats"

	"github.com/stretchr/testify/require"
)

func TestBinomTail(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		k, n    int
		q, want float64
	}{
		{name: "nothing asked", k: 0, n: 10, q: 0.3, want: 1},
		{name: "more than n", k: 11, n: 10, q: 0.3, want: 0},
		{name: "never fails", k: 1, n: 10, q: 0, want: 0},
		{name: "always fails", k: 10, n: 10, q: 1, want: 1},
		{name: "one coin", k: 1, n: 1, q: 0.5, want: 0.5},
		{name: "all of three", k: 3, n: 3, q: 0.5, want: 0.125},
		{name: "two or more of three", k: 2, n: 3, q: 0.5, want: 0.5},
		{name: "at least one of ten at 0.1", k: 1, n: 10, q: 0.1, want: 1 - 0.3486784401},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			require.InDelta(t, c.want, stats.BinomTail(c.k, c.n, c.q), 1e-9)
		})
	}
}
