package tools

import (
	"math"
	"math/rand/v2"
	"time"
)

// The synthetic series of facts' onset tests (facts/onset_test.go), for
// the tests of tools that build on them.

// synth describes a synthetic per-minute series: a recording of length
// minutes ending at the alert, traffic of rate requests/s seen through
// 1-in-sampling trace sampling, and a regression from onset on.
type synth struct {
	length   time.Duration
	rate     float64 // requests per second before sampling
	sampling float64 // 1 in sampling spans is kept
	onset    time.Duration
	signal   string // "error_rate" or "p95"
	// spike is an earlier, recovered incident: its start and length, counted
	// from the beginning of the recording.
	spikeAt, spikeFor time.Duration
	// gapAt, gapFor is a stretch with no spans at all (a retention gap).
	gapAt, gapFor time.Duration
}

var synthEnd = time.Date(2026, 11, 4, 12, 0, 0, 0, time.UTC)

func (s synth) onsetAt() time.Time { return synthEnd.Add(-s.length).Add(s.onset) }

// minutes draws the series: Poisson sampled traffic, 0.5% background errors,
// p95 around 120 ms; after the onset 30% errors or a p95 of 700 ms.
func (s synth) minutes(seed uint64) []Minute {
	r := rand.New(rand.NewPCG(seed, seed^0x5eed))
	start := synthEnd.Add(-s.length)
	var out []Minute
	for t := start; t.Before(synthEnd); t = t.Add(time.Minute) {
		off := t.Sub(start)
		if s.gapFor > 0 && off >= s.gapAt && off < s.gapAt+s.gapFor {
			continue
		}
		n := poisson(r, s.rate*60/s.sampling)
		if n == 0 {
			continue
		}
		errRate, p95 := 0.005, 120*(0.9+0.2*r.Float64())
		bad := !t.Before(s.onsetAt()) || (s.spikeFor > 0 && off >= s.spikeAt && off < s.spikeAt+s.spikeFor)
		if bad && s.signal == "error_rate" {
			errRate = 0.3
		}
		if bad && s.signal == "p95" {
			p95 = 700 * (0.9 + 0.2*r.Float64())
		}
		if n < 5 { // few spans: p95 is one of them
			p95 *= 0.6 + 0.8*r.Float64()
		}
		e := 0
		for range n {
			if r.Float64() < errRate {
				e++
			}
		}
		out = append(out, Minute{At: t, Requests: float64(n), Errors: float64(e), P95Ms: p95})
	}
	return out
}

func poisson(r *rand.Rand, lambda float64) int {
	if lambda > 500 {
		return int(math.Max(0, math.Round(lambda+r.NormFloat64()*math.Sqrt(lambda))))
	}
	l, k, p := math.Exp(-lambda), 0, 1.0
	for {
		p *= r.Float64()
		if p <= l {
			return k
		}
		k++
	}
}
