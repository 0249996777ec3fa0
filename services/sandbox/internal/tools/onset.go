package tools

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// Minute is one minute of a service's traffic.
type Minute struct {
	At       time.Time
	Requests float64
	Errors   float64
	// P95Ms is NaN when the minute had no spans.
	P95Ms float64
}

// Margins say how far a minute must leave the baseline, and for how long, to
// count as the onset.
type Margins struct {
	// ErrorRateFactor and ErrorRateAbs: a minute's error rate is off baseline at
	// or above max(base × factor, base + abs).
	ErrorRateFactor, ErrorRateAbs float64
	// P95Factor and P95AbsMs: p95 is off baseline at or above
	// max(base × factor, base + abs, base + 3 × MAD).
	P95Factor, P95AbsMs float64
	// Sustain is how many consecutive minutes with traffic must be off baseline.
	Sustain int
	// MinRequests is the least traffic for a minute's error rate to count.
	MinRequests float64
}

// DefaultMargins are stated in the README: error rate ≥ 2× baseline and +5
// points, or p95 ≥ 1.5× baseline and +50 ms, for 3 consecutive minutes.
var DefaultMargins = Margins{ErrorRateFactor: 2, ErrorRateAbs: 0.05, P95Factor: 1.5, P95AbsMs: 50, Sustain: 3, MinRequests: 3}

// Onset is the result of FindOnset.
type Onset struct {
	// At is nil when no regression was found or the baseline is empty.
	At                *time.Time
	Signal            string // "error_rate" or "p95"
	BaselineErrorRate float64
	BaselineP95Ms     float64
	ErrorThreshold    float64
	P95ThresholdMs    float64
	// Reason explains the outcome in one sentence.
	Reason string
}

// FindOnset finds the first minute at or after baselineEnd from which the error
// rate or p95 is off the baseline (minutes before baselineEnd) for m.Sustain
// consecutive minutes with traffic. Minutes need not be sorted.
func FindOnset(minutes []Minute, baselineEnd time.Time, m Margins) Onset {
	ms := slices.Clone(minutes)
	slices.SortFunc(ms, func(a, b Minute) int { return a.At.Compare(b.At) })
	var req, errs float64
	var p95s []float64
	for _, x := range ms {
		if !x.At.Before(baselineEnd) {
			break
		}
		req += x.Requests
		errs += x.Errors
		if x.Requests > 0 && !math.IsNaN(x.P95Ms) {
			p95s = append(p95s, x.P95Ms)
		}
	}
	if req == 0 {
		return Onset{Reason: "no traffic in the baseline before " + baselineEnd.Format(time.RFC3339) + ": onset unknown"}
	}
	o := Onset{BaselineErrorRate: errs / req}
	o.ErrorThreshold = math.Max(o.BaselineErrorRate*m.ErrorRateFactor, o.BaselineErrorRate+m.ErrorRateAbs)
	p95Known := len(p95s) > 0
	if p95Known {
		o.BaselineP95Ms = median(p95s)
		var dev []float64
		for _, v := range p95s {
			dev = append(dev, math.Abs(v-o.BaselineP95Ms))
		}
		o.P95ThresholdMs = math.Max(math.Max(o.BaselineP95Ms*m.P95Factor, o.BaselineP95Ms+m.P95AbsMs), o.BaselineP95Ms+3*median(dev))
	}
	off := func(x Minute) string {
		if x.Requests >= m.MinRequests && x.Errors/x.Requests >= o.ErrorThreshold {
			return "error_rate"
		}
		if p95Known && !math.IsNaN(x.P95Ms) && x.P95Ms >= o.P95ThresholdMs {
			return "p95"
		}
		return ""
	}
	var active []Minute
	for _, x := range ms {
		if x.At.Before(baselineEnd) || x.Requests == 0 {
			continue
		}
		active = append(active, x)
	}
	for i, x := range active {
		sig := off(x)
		if sig == "" {
			continue
		}
		n := min(m.Sustain, len(active)-i)
		held := true
		for _, y := range active[i : i+n] {
			if off(y) == "" {
				held = false
				break
			}
		}
		if held {
			at := x.At.UTC()
			o.At, o.Signal = &at, sig
			o.Reason = fmt.Sprintf("%s left its baseline at %s and stayed off for %d minutes", sig, at.Format(time.RFC3339), n)
			return o
		}
	}
	o.Reason = "no sustained departure from the baseline"
	return o
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// BaselineEnd is the end of the baseline: halfway from the start of the onset
// window to the alert's startsAt, so the baseline is the first part of the
// window, well before the alert.
func BaselineEnd(w Window, startsAt time.Time) time.Time {
	if !startsAt.After(w.From) {
		return w.From
	}
	return w.From.Add(startsAt.Sub(w.From) / 2)
}
