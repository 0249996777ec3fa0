package facts

import (
	"math/rand/v2"
	"testing"
	"time"

	"agentk/services/sandbox/internal/facts/synthetic"

	"github.com/stretchr/testify/require"
)

// retrySynth is one retry source over 3 h of history ending at synthEnd:
// inbound sampled requests per minute (Poisson), retries per request
// (Poisson per minute) and from riseAt on (when set) riseRate.
type retrySynth struct {
	perMinute, rate, riseRate float64
	riseAt                    time.Time
}

func (s retrySynth) minutes(r *rand.Rand) []Minute {
	var out []Minute
	for t := synthEnd.Add(-3 * time.Hour); t.Before(synthEnd.Add(5 * time.Minute)); t = t.Add(time.Minute) {
		n := synthetic.Poisson(r, s.perMinute)
		rate := s.rate
		if !s.riseAt.IsZero() && !t.Before(s.riseAt) {
			rate = s.riseRate
		}
		retries := min(float64(synthetic.Poisson(r, rate*float64(n))), float64(n))
		out = append(out, Minute{At: t, Requests: float64(n), Errors: retries})
	}
	return out
}

// A release whose client now retries inside one span (0.02 → 0.6 retries
// a request, no error, no latency departure) places the onset the other
// signals did not find, at the rise (up to one bucket early).
func TestRetryOnsetPlacesAnOnsetWhereNoneWasFound(t *testing.T) {
	t.Parallel()
	rise := synthEnd.Add(-20 * time.Minute)
	for _, tc := range []struct {
		name      string
		perMinute float64
	}{{"busy", 12}, {"sparse", 3}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewPCG(7, 35))
			series := map[string][]Minute{
				"llm.client.retry_count": retrySynth{perMinute: tc.perMinute, rate: 0.02, riseRate: 0.6, riseAt: rise}.minutes(r),
				"retry log lines":        retrySynth{perMinute: tc.perMinute, rate: 0.01}.minutes(r),
			}
			ro, ok := RetryOnset(series, synthEnd, DefaultMargins)
			require.True(t, ok, ro.Reason)
			require.Equal(t, "retries", ro.Signal)
			require.Equal(t, "llm.client.retry_count", ro.QualityKey)
			require.False(t, ro.At.After(rise), "%v", ro.At)
			require.False(t, ro.At.Before(rise.Add(-time.Duration(ro.BucketMinutes)*time.Minute)), "%v", ro.At)
			none := Onset{Reason: "no sustained departure from the baseline", BaselineMinutes: 170, ErrorThreshold: 0.07, P95ThresholdMs: 900}
			got := EarliestWithRetries(none, ro, ok)
			require.Equal(t, ro.At, got.At)
			require.Equal(t, 0.07, got.ErrorThreshold)
			require.Equal(t, 900.0, got.P95ThresholdMs)
		})
	}
}

// The retries' onset may move the onset earlier, never later: a later rise
// of the retries leaves an earlier onset where it was (and a marker between
// the two stays after the onset), and an onset unknown for a short baseline
// stays unknown.
func TestRetryOnsetEarlierNeverLater(t *testing.T) {
	t.Parallel()
	early, late := synthEnd.Add(-40*time.Minute), synthEnd.Add(-10*time.Minute)
	ro := Onset{At: &late, Signal: "retries", QualityKey: "llm.client.retry_count", BaselineMinutes: 150}
	tests := []struct {
		name string
		on   Onset
		want *time.Time
	}{
		{"an earlier onset stays", Onset{At: &early, Signal: "p95", BaselineMinutes: 120}, &early},
		{"a later onset moves earlier", Onset{At: &synthEnd, Signal: "error_rate", BaselineMinutes: 170}, &late},
		{"none found", Onset{Reason: "no sustained departure from the baseline", BaselineMinutes: 170}, &late},
		{"short stays unknown", Onset{Short: true, Reason: "short"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, EarliestWithRetries(tc.on, ro, true).At)
			require.Equal(t, tc.on.At, EarliestWithRetries(tc.on, ro, false).At)
		})
	}
}

// Many quiet retry series (retries per request steady at 1% to 30%, busy
// and sparse) place no onset: the departures are judged at
// RetryOnsetAlpha / N (Bonferroni) with the operations' per-bucket test.
func TestQuietRetrySeriesPlaceNoOnset(t *testing.T) {
	t.Parallel()
	for seed := uint64(1); seed <= 4; seed++ {
		r := rand.New(rand.NewPCG(seed, 35))
		series := map[string][]Minute{}
		for i := range 12 {
			series[string(rune('a'+i))] = retrySynth{perMinute: []float64{1.5, 4, 12}[i%3], rate: []float64{0.01, 0.05, 0.12, 0.3}[i%4]}.minutes(r)
		}
		ro, ok := RetryOnset(series, synthEnd, DefaultMargins)
		require.False(t, ok, "seed %d: %s", seed, ro.Reason)
	}
}
