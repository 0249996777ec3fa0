// Package synthetic draws the per-minute series the onset tests of facts
// and tools share. Only tests import it; it does not import facts (whose
// own tests use it), so a series is its own Minute, converted by the caller.
package synthetic

import (
	"math"
	"math/rand/v2"
	"time"
)

// Series describes a synthetic per-minute series: a recording of Length
// ending at End, traffic of Rate requests/s seen through 1-in-Sampling trace
// sampling, and a regression of Signal ("error_rate" or "p95") from Onset
// on (counted from the beginning of the recording).
type Series struct {
	Length   time.Duration
	Rate     float64
	Sampling float64
	Onset    time.Duration
	Signal   string
	// SpikeAt, SpikeFor is an earlier, recovered incident: its start and
	// length, counted from the beginning of the recording.
	SpikeAt, SpikeFor time.Duration
	// GapAt, GapFor is a stretch with no spans at all (a retention gap).
	GapAt, GapFor time.Duration
}

// Minute is one minute of a drawn series, the fields of facts.Minute.
type Minute struct {
	At       time.Time
	Requests float64
	Errors   float64
	Retries  float64
	P95Ms    float64
}

// End is where every recording ends: the alert.
var End = time.Date(2026, 11, 4, 12, 0, 0, 0, time.UTC)

// OnsetAt is the regression's start.
func (s Series) OnsetAt() time.Time { return End.Add(-s.Length).Add(s.Onset) }

// Minutes draws the series: Poisson sampled traffic, 0.5% background errors,
// p95 around 120 ms; after the onset 30% errors or a p95 of 700 ms.
func (s Series) Minutes(seed uint64) []Minute {
	r := rand.New(rand.NewPCG(seed, seed^0x5eed))
	start := End.Add(-s.Length)
	var out []Minute
	for t := start; t.Before(End); t = t.Add(time.Minute) {
		off := t.Sub(start)
		if s.GapFor > 0 && off >= s.GapAt && off < s.GapAt+s.GapFor {
			continue
		}
		n := Poisson(r, s.Rate*60/s.Sampling)
		if n == 0 {
			continue
		}
		errRate, p95 := 0.005, 120*(0.9+0.2*r.Float64())
		bad := !t.Before(s.OnsetAt()) || (s.SpikeFor > 0 && off >= s.SpikeAt && off < s.SpikeAt+s.SpikeFor)
		if bad && s.Signal == "error_rate" {
			errRate = 0.3
		}
		if bad && s.Signal == "p95" {
			p95 = 700 * (0.9 + 0.2*r.Float64())
		}
		if n < 5 { // few spans: p95 is one of them
			p95 *= 0.6 + 0.8*r.Float64()
		}
		e := Binomial(r, n, errRate)
		out = append(out, Minute{At: t, Requests: float64(n), Errors: float64(e), P95Ms: p95})
	}
	return out
}

// Poisson draws a count of mean lambda (a normal approximation above 500).
func Poisson(r *rand.Rand, lambda float64) int {
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

// Binomial draws how many of n trials of probability p succeed, one draw of
// r each.
func Binomial(r *rand.Rand, n int, p float64) int {
	k := 0
	for range n {
		if r.Float64() < p {
			k++
		}
	}
	return k
}
