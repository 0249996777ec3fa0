package facts

import (
	"math/rand/v2"
	"testing"
	"time"

	"agentk/services/sandbox/internal/facts/synthetic"

	"github.com/stretchr/testify/require"
)

// episodes draws a per-minute series ending at synthEnd (+10 min) with
// sampled traffic of perMinute, p95 about 120 ms and 0.5% errors, and
// episodes of p95 about 700 ms or 30% errors: [start, end) offsets from
// synthEnd.
func episodes(seed uint64, perMinute float64, history time.Duration, signal string, eps ...[2]time.Duration) []Minute {
	r := rand.New(rand.NewPCG(seed, 6))
	var out []Minute
	for t := synthEnd.Add(-history); t.Before(synthEnd.Add(10 * time.Minute)); t = t.Add(time.Minute) {
		n := synthetic.Poisson(r, perMinute)
		if n == 0 {
			continue
		}
		bad := false
		for _, e := range eps {
			if !t.Before(synthEnd.Add(e[0])) && t.Before(synthEnd.Add(e[1])) {
				bad = true
			}
		}
		rate, p95 := 0.005, 120*(0.9+0.2*r.Float64())
		if bad && signal == "p95" {
			p95 = 700 * (0.9 + 0.2*r.Float64())
		}
		if bad && signal == "error_rate" {
			rate = 0.3
		}
		e := synthetic.Binomial(r, n, rate)
		out = append(out, Minute{At: t, Requests: float64(n), Errors: float64(e), P95Ms: p95})
	}
	return out
}

// Two back-to-back episodes: an earlier regression block that began and
// ended before the candidate onset is dropped from the baseline, as a
// spike is, and the second episode's onset is found at its start (DESIGN
// item 6 of issue 35: a baseline that holds an earlier episode is still a
// baseline).
func TestBaselineHoldingAnEarlierEpisode(t *testing.T) {
	t.Parallel()
	const m = time.Minute
	for _, tc := range []struct {
		name      string
		signal    string
		history   time.Duration
		perMinute float64
		first     [2]time.Duration
	}{
		{"slow block then a slow storm, 15 min apart", "p95", 3 * time.Hour, 20, [2]time.Duration{-70 * m, -30 * m}},
		{"slow block ending 8 min before the storm", "p95", 2 * time.Hour, 20, [2]time.Duration{-60 * m, -23 * m}},
		{"error block then errors again", "error_rate", 3 * time.Hour, 20, [2]time.Duration{-80 * m, -35 * m}},
		{"a long first block, most of the history", "p95", 100 * m, 20, [2]time.Duration{-80 * m, -30 * m}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			second := [2]time.Duration{-15 * m, 20 * m}
			for seed := uint64(1); seed <= 4; seed++ {
				on := FindOnset(episodes(seed, tc.perMinute, tc.history, tc.signal, tc.first, second), synthEnd, DefaultMargins)
				require.NotNil(t, on.At, "seed %d: %s", seed, on.Reason)
				at := synthEnd.Add(second[0])
				require.False(t, on.At.Before(at.Add(-2*m)), "seed %d: onset %s, the second episode at %s (%s)", seed, on.At, at, on.Reason)
				require.False(t, on.At.After(at.Add(2*m)), "seed %d: onset %s (%s)", seed, on.At, on.Reason)
			}
		})
	}
}
