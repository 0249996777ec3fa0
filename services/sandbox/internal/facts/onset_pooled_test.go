package facts

import (
	"math/rand/v2"
	"testing"
	"time"

	"agentk/services/sandbox/internal/facts/synthetic"

	"github.com/stretchr/testify/require"
)

// weakSparse is the shape of a weak release regression in thin sampled
// traffic (s8080-w016: 23.5 h at 0.34 requests/s sampled 1 in 5; s2727-w056
// at 1 in 100): about perMinute sampled spans a minute, background errors
// at baseRate, from onset on errors at regRate, the data ending end. Errors
// are drawn as Poisson arrivals, so no bucket is guaranteed any.
type weakSparse struct {
	length            time.Duration
	perMinute         float64
	baseRate, regRate float64
	onset             time.Duration // before end
	// burst adds errors to the last minute (after the alert).
	burst float64
	// spikeAt, spikeFor is an earlier recovered error spike, counted from
	// the start of the recording, at 30% errors.
	spikeAt, spikeFor time.Duration
}

func (w weakSparse) minutes(seed uint64) []Minute {
	r := rand.New(rand.NewPCG(seed, seed^0xbeef))
	start := synthEnd.Add(-w.length)
	var out []Minute
	for t := start; t.Before(synthEnd); t = t.Add(time.Minute) {
		n := synthetic.Poisson(r, w.perMinute)
		if n == 0 {
			continue
		}
		p := w.baseRate
		if off := t.Sub(start); w.spikeFor > 0 && off >= w.spikeAt && off < w.spikeAt+w.spikeFor {
			p = 0.3
		}
		if !t.Before(synthEnd.Add(-w.onset)) {
			p = w.regRate
		}
		e := synthetic.Binomial(r, n, p)
		out = append(out, Minute{At: t, Requests: float64(n), Errors: float64(e), P95Ms: 120})
	}
	if w.burst > 0 {
		out[len(out)-1].Errors += w.burst
		out[len(out)-1].Requests += w.burst
	}
	return out
}

// TestFindOnsetPoolsSparseErrors: a release failing 5-6% of requests in
// traffic of 10-20 sampled spans a minute puts one error in a bucket now and
// then; no bucket stays off the +5-point margin for 3 buckets. Without the
// pooled test the onset is none ("no sustained departure"), or a burst in
// the last minute after the alert (a departure at the data's end holds
// trivially) is taken for it, after the alert it cannot have fired. With it,
// the onset is found in most draws, never after the alert and never far
// before the regression began (a stray background error a few minutes
// before may draw the split to it: early is the safe side). It is not
// always at the regression's first failing minute: at 6% of 10 spans a
// minute a weak regression and a later cluster of its errors are hard to
// tell apart, and the split goes where the evidence is (the margins'
// departure, where that is earlier).
func TestFindOnsetPoolsSparseErrors(t *testing.T) {
	t.Parallel()
	alert := synthEnd.Add(-2 * time.Minute)
	tests := []struct {
		name string
		w    weakSparse
	}{
		{"23.5 h, 10 spans a minute, 6% errors for 10 min, a burst after the alert",
			weakSparse{length: 1410 * time.Minute, perMinute: 10, baseRate: 0.004, regRate: 0.06, onset: 11 * time.Minute, burst: 2}},
		{"85 min, 20 spans a minute, 5% errors for 5 min",
			weakSparse{length: 85 * time.Minute, perMinute: 20, baseRate: 0.002, regRate: 0.06, onset: 6 * time.Minute}},
		{"6 h, 10 spans a minute, an earlier recovered spike",
			weakSparse{length: 6 * time.Hour, perMinute: 10, baseRate: 0.004, regRate: 0.07, onset: 12 * time.Minute, spikeAt: 2 * time.Hour, spikeFor: 20 * time.Minute}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			found := 0
			for seed := range uint64(20) {
				ms := tt.w.minutes(seed)
				o := FindOnset(ms, alert, DefaultMargins)
				if o.At == nil {
					continue
				}
				found++
				truth := synthEnd.Add(-tt.w.onset)
				require.False(t, o.At.After(alert), "seed %d: onset %s after the alert: %s", seed, o.At, o.Reason)
				require.False(t, o.At.Before(truth.Add(-10*time.Minute)), "seed %d: early onset %s, true %s: %s", seed, o.At, truth, o.Reason)
			}
			require.GreaterOrEqual(t, found, 15, "the weak regression is found in most draws")
		})
	}
}

// TestPooledOnsetNoFalseAlarm: the pooled test on series with no
// regression at all, from 20 minutes to 24 hours and 4 to 40 sampled spans
// a minute at 0.2-1% background errors, finds nothing (a false onset after
// an unrelated deploy could explain nothing away, but it is no evidence).
func TestPooledOnsetNoFalseAlarm(t *testing.T) {
	t.Parallel()
	alert := synthEnd.Add(-2 * time.Minute)
	false := 0
	runs := 0
	for _, length := range []time.Duration{20 * time.Minute, 90 * time.Minute, 6 * time.Hour, 24 * time.Hour} {
		for _, per := range []float64{4, 10, 40} {
			for _, base := range []float64{0.002, 0.01} {
				w := weakSparse{length: length, perMinute: per, baseRate: base, regRate: base, onset: time.Minute}
				for seed := range uint64(10) {
					runs++
					if o := FindOnset(w.minutes(seed), alert, DefaultMargins); o.Pooled {
						false++
						t.Logf("%s %g/min %g seed %d: %s", length, per, base, seed, o.Reason)
					}
				}
			}
		}
	}
	require.Zero(t, false, "pooled onsets on %d series without a regression", runs)
}

// TestPooledOnsetBeforeTheAlert is s8080-w016's series, minute by minute:
// a day at 10-14 sampled spans a minute with an error every 25 minutes, a
// release whose failures come one a minute or two apart from 20:51 (never
// +5 points for 3 buckets running), the alert at 20:58:51, and two errors in
// the data's last minute after it. Without the pooled test that last minute
// alone is the departure (a run at the data's end holds trivially): an onset
// after the alert. With it, the onset is 20:51, the minute the failures began (the minute before holds spans on the baseline).
func TestPooledOnsetBeforeTheAlert(t *testing.T) {
	t.Parallel()
	end := time.Date(2026, 10, 18, 21, 1, 0, 0, time.UTC)
	alert := time.Date(2026, 10, 18, 20, 58, 51, 0, time.UTC)
	var ms []Minute
	for at, k := end.Add(-23*time.Hour), 0; !at.After(end); at, k = at.Add(time.Minute), k+1 {
		x := Minute{At: at, Requests: float64(10 + k%5), P95Ms: 120}
		if k%25 == 7 && at.Before(end.Add(-20*time.Minute)) {
			x.Errors = 1
		}
		ms = append(ms, x)
	}
	for _, m := range []int{51, 52, 54, 56} {
		ms[len(ms)-1-(61-m)].Errors = 1
	}
	ms[len(ms)-1].Errors = 2
	ms[len(ms)-1].Requests = 4
	o := FindOnset(ms, alert, DefaultMargins)
	require.NotNil(t, o.At, o.Reason)
	require.True(t, o.Pooled, o.Reason)
	require.Equal(t, time.Date(2026, 10, 18, 20, 51, 0, 0, time.UTC), *o.At, o.Reason)
}

// TestPooledOnsetLeavesADepartureUnderWay: a departure of the margins under
// way by the alert stands, even where the pooled split finds an earlier,
// significant stretch of a higher error rate. The shape is the metamorphic
// failure s18-w033-traffic-surge-quote-engine extended with 6 hours of
// history: the history's error rate is lower than the recording's, the
// pooled split put the onset 2 h 10 min early and the rules' diagnosis
// changed from traffic_surge to unknown.
func TestPooledOnsetLeavesADepartureUnderWay(t *testing.T) {
	t.Parallel()
	alert := time.Date(2026, 11, 2, 11, 46, 54, 0, time.UTC)
	var ms []Minute
	for at, k := alert.Add(-8*time.Hour).Truncate(time.Minute), 0; at.Before(alert); at, k = at.Add(time.Minute), k+1 {
		x := Minute{At: at, Requests: 20, P95Ms: 120}
		recorded := !at.Before(alert.Add(-75 * time.Minute))
		if recorded && k%8 == 0 || !recorded && k%100 == 0 {
			x.Errors = 1 // 0.6% of requests in the recording, 0.05% before it
		}
		if !at.Before(alert.Add(-11 * time.Minute)) {
			x.P95Ms = 900
		}
		ms = append(ms, x)
	}
	o := FindOnset(ms, alert, DefaultMargins)
	require.NotNil(t, o.At, o.Reason)
	require.False(t, o.Pooled, o.Reason)
	require.WithinDuration(t, alert.Add(-11*time.Minute), *o.At, 2*time.Minute, o.Reason)
}
