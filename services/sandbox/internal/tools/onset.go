package tools

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// Minute is one minute of a service's traffic. Counts are of the spans SigNoz
// stored, so with trace sampling they are sampled requests: only rates and
// ratios of them mean anything.
type Minute struct {
	At       time.Time
	Requests float64
	Errors   float64
	// P95Ms is NaN when the minute had no spans.
	P95Ms float64
}

// Margins say how far the series must leave its baseline, and for how long, to
// count as the onset, and how much baseline that takes.
type Margins struct {
	// ErrorRateFactor and ErrorRateAbs: a bucket's error rate is off baseline at
	// or above max(base × factor, base + abs).
	ErrorRateFactor, ErrorRateAbs float64
	// P95Factor and P95AbsMs: p95 is off baseline at or above
	// max(base × factor, base + abs, base + 3 × 1.4826 × MAD).
	P95Factor, P95AbsMs float64
	// Sustain is how many consecutive buckets with traffic must be off
	// baseline (fewer when the data ends sooner).
	Sustain int
	// MinRequests is the least sampled traffic for a bucket's error rate to count.
	MinRequests float64
	// MinBaselineMinutes and MinBaselineRequests are the least baseline (minutes
	// with traffic, sampled requests) before a candidate onset; with less the
	// onset is unknown and the evidence says so.
	MinBaselineMinutes  int
	MinBaselineRequests float64
	// BucketRequests is the sampled traffic a bucket should hold: sparse series
	// (low traffic, heavy sampling) are judged over buckets of several minutes,
	// at most MaxBucketMinutes wide.
	BucketRequests   float64
	MaxBucketMinutes int
	// Tolerance is how many buckets back on baseline a regression may show
	// before it counts as over (sampled data is noisy).
	Tolerance int
}

// DefaultMargins are stated in the README: error rate ≥ 2× baseline and +5
// points, or p95 ≥ 1.5× baseline and +50 ms (and 3 robust deviations), for 3
// consecutive buckets; the baseline is at least 10 minutes with traffic and
// 30 sampled requests; a bucket holds about 10 sampled requests (1 to 15
// minutes wide).
var DefaultMargins = Margins{
	ErrorRateFactor: 2, ErrorRateAbs: 0.05, P95Factor: 1.5, P95AbsMs: 50, Sustain: 3, MinRequests: 3,
	MinBaselineMinutes: 10, MinBaselineRequests: 30, BucketRequests: 10, MaxBucketMinutes: 15, Tolerance: 2,
}

// Onset is the result of FindOnset.
type Onset struct {
	// At is nil when no regression was found or the baseline is too short.
	At                *time.Time
	Signal            string // "error_rate" or "p95"
	BaselineErrorRate float64
	BaselineP95Ms     float64
	ErrorThreshold    float64
	P95ThresholdMs    float64
	// BaselineFrom and BaselineMinutes, BaselineRequests describe the baseline
	// the onset was judged against (every minute with traffic before it, less
	// earlier departures that recovered).
	BaselineFrom     time.Time
	BaselineMinutes  int
	BaselineRequests float64
	// BucketMinutes is the width the series was judged at.
	BucketMinutes int
	// Short is set when the baseline was too short to place the onset.
	Short bool
	// Reason explains the outcome in one sentence of plain words.
	Reason string
}

type bucket struct {
	at       time.Time
	minutes  []Minute // with traffic
	requests float64
	errors   float64
	p95      float64 // NaN when unknown
	excluded bool    // part of an earlier departure that recovered
}

func (b bucket) rate() float64 { return b.errors / b.requests }

type baseline struct {
	minutes  int
	requests float64
	from     time.Time
	errRate  float64
	p95      float64 // NaN when unknown
	errThr   float64
	p95Thr   float64 // +Inf when unknown
}

// bucketWidth is the smallest width from 1, 2, 3, 5, 10, 15 minutes (up to
// m.MaxBucketMinutes) at which the median minute with traffic fills a bucket
// with m.BucketRequests sampled requests.
func bucketWidth(active []Minute, m Margins) int {
	var reqs []float64
	for _, x := range active {
		reqs = append(reqs, x.Requests)
	}
	// Sparse series skip minutes: count the minutes of the whole span.
	span := active[len(active)-1].At.Sub(active[0].At).Minutes() + 1
	var total float64
	for _, r := range reqs {
		total += r
	}
	perMinute := math.Min(median(reqs), total/span)
	w := 1
	for _, c := range []int{1, 2, 3, 5, 10, 15} {
		if c > m.MaxBucketMinutes {
			break
		}
		w = c
		if perMinute*float64(c) >= m.BucketRequests {
			break
		}
	}
	return w
}

func buckets(active []Minute, w int) []bucket {
	var out []bucket
	t0 := active[0].At
	for _, x := range active {
		k := int(x.At.Sub(t0) / (time.Duration(w) * time.Minute))
		at := t0.Add(time.Duration(k*w) * time.Minute)
		if len(out) == 0 || !out[len(out)-1].at.Equal(at) {
			out = append(out, bucket{at: at})
		}
		b := &out[len(out)-1]
		b.minutes = append(b.minutes, x)
		b.requests += x.Requests
		b.errors += x.Errors
	}
	for i := range out {
		var p []float64
		for _, x := range out[i].minutes {
			if !math.IsNaN(x.P95Ms) {
				p = append(p, x.P95Ms)
			}
		}
		out[i].p95 = math.NaN()
		if len(p) > 0 {
			out[i].p95 = median(p)
		}
	}
	return out
}

// baselineOf is the robust baseline of bs: the error rate pooled over the
// buckets less the tenth with the highest rates, the median p95 and its MAD.
func baselineOf(bs []bucket, m Margins) baseline {
	var b baseline
	var kept []bucket
	for _, x := range bs {
		if x.excluded {
			continue
		}
		if b.minutes == 0 {
			b.from = x.at
		}
		b.minutes += len(x.minutes)
		b.requests += x.requests
		kept = append(kept, x)
	}
	b.p95, b.p95Thr = math.NaN(), math.Inf(1)
	if len(kept) == 0 {
		return b
	}
	byRate := slices.Clone(kept)
	slices.SortFunc(byRate, func(x, y bucket) int {
		switch rx, ry := x.rate(), y.rate(); {
		case rx < ry:
			return -1
		case rx > ry:
			return 1
		}
		return 0
	})
	byRate = byRate[:len(byRate)-len(byRate)/10]
	var req, errs float64
	for _, x := range byRate {
		req += x.requests
		errs += x.errors
	}
	if req > 0 {
		b.errRate = errs / req
	}
	b.errThr = math.Max(b.errRate*m.ErrorRateFactor, b.errRate+m.ErrorRateAbs)
	var p []float64
	for _, x := range kept {
		if !math.IsNaN(x.p95) {
			p = append(p, x.p95)
		}
	}
	if len(p) > 0 {
		b.p95 = median(p)
		var dev []float64
		for _, v := range p {
			dev = append(dev, math.Abs(v-b.p95))
		}
		b.p95Thr = math.Max(math.Max(b.p95*m.P95Factor, b.p95+m.P95AbsMs), b.p95+3*1.4826*median(dev))
	}
	return b
}

func (b baseline) enough(m Margins) bool {
	return b.minutes >= m.MinBaselineMinutes && b.requests >= m.MinBaselineRequests
}

// off says which signal of x is off the baseline, or "".
func (b baseline) off(requests, errors, p95 float64, minReq float64) string {
	if requests >= minReq && requests > 0 && errors/requests >= b.errThr {
		return "error_rate"
	}
	if !math.IsNaN(p95) && p95 >= b.p95Thr {
		return "p95"
	}
	return ""
}

func (b baseline) offBucket(x bucket, m Margins) string {
	return b.off(x.requests, x.errors, x.p95, m.MinRequests)
}

// FindOnset finds the change point of a service's per-minute series: the first
// minute of the departure from the baseline that is still under way when the
// alert fired at alertAt. The baseline of a candidate is every minute with
// traffic before it, less earlier departures that recovered (an earlier
// incident does not move the onset), judged with robust statistics (a
// trimmed pooled error rate, the median p95 and its MAD). Sparse series are
// judged over buckets of several minutes and the onset placed at the first
// minute of the first bucket off baseline that is itself off. Minutes need not
// be sorted; minutes with no traffic (gaps) are skipped.
//
// When the baseline before the departure is shorter than m's minimum, At is
// nil, Short is set and Reason says so in plain words ("baseline 6 min, need
// 10"): a gate must then fail closed.
func FindOnset(minutes []Minute, alertAt time.Time, m Margins) Onset {
	var active []Minute
	for _, x := range minutes {
		if x.Requests > 0 {
			active = append(active, x)
		}
	}
	slices.SortFunc(active, func(a, b Minute) int { return a.At.Compare(b.At) })
	if len(active) == 0 {
		return Onset{Reason: "no traffic in the series: onset unknown"}
	}
	w := bucketWidth(active, m)
	bs := buckets(active, w)
	need := fmt.Sprintf("need %d min and %s sampled requests", m.MinBaselineMinutes, fmtF(m.MinBaselineRequests))
	latest := alertAt.Add(time.Duration(w) * time.Minute)

	first := -1
	for i := range bs {
		if baselineOf(bs[:i], m).enough(m) {
			first = i
			break
		}
	}
	if first < 0 || !bs[first].at.Before(latest) {
		b := baselineOf(before(bs, alertAt), m)
		return Onset{BucketMinutes: w, Short: true, BaselineMinutes: b.minutes, BaselineRequests: b.requests, BaselineFrom: b.from,
			Reason: fmt.Sprintf("baseline %d min (%s sampled requests) before the alert, %s: onset unknown", b.minutes, fmtF(b.requests), need)}
	}
	for i := first; i < len(bs) && bs[i].at.Before(latest); i++ {
		base := baselineOf(bs[:i], m)
		sig := base.offBucket(bs[i], m)
		if sig == "" {
			continue
		}
		n := min(m.Sustain, len(bs)-i)
		held := true
		for _, y := range bs[i : i+n] {
			if base.offBucket(y, m) == "" {
				held = false
				break
			}
		}
		if !held {
			continue
		}
		// How long did it last? Up to Tolerance buckets back on baseline do
		// not end it.
		end, back := i, 0
		for j := i + 1; j < len(bs) && back <= m.Tolerance; j++ {
			if base.offBucket(bs[j], m) != "" {
				end, back = j, 0
			} else {
				back++
			}
		}
		ongoing := end >= len(bs)-1-m.Tolerance || !bs[end].at.Add(time.Duration(w)*time.Minute).Before(alertAt)
		if !ongoing {
			// An earlier departure that recovered: not this incident, and
			// not part of any later baseline.
			for j := i; j <= end; j++ {
				bs[j].excluded = true
			}
			i = end
			continue
		}
		if i == first && first > 0 && base.offBucket(bs[first-1], m) != "" {
			// The departure was already under way when the baseline reached
			// its minimum: its start cannot be measured.
			k := first - 1
			for k > 0 && base.offBucket(bs[k-1], m) != "" {
				k--
			}
			short := baselineOf(bs[:k], m)
			return Onset{BucketMinutes: w, Short: true, BaselineMinutes: short.minutes, BaselineRequests: short.requests, BaselineFrom: short.from,
				Reason: fmt.Sprintf("baseline %d min (%s sampled requests) before the regression began near %s, %s: onset unknown",
					short.minutes, fmtF(short.requests), bs[k].at.Format(time.RFC3339), need)}
		}
		at := bs[i].at
		for _, x := range bs[i].minutes {
			if base.off(x.Requests, x.Errors, x.P95Ms, 1) == sig {
				at = x.At
				break
			}
		}
		at = at.UTC()
		return Onset{
			At: &at, Signal: sig, BaselineErrorRate: base.errRate, BaselineP95Ms: nanZero(base.p95),
			ErrorThreshold: base.errThr, P95ThresholdMs: infZero(base.p95Thr),
			BaselineFrom: base.from, BaselineMinutes: base.minutes, BaselineRequests: base.requests, BucketMinutes: w,
			Reason: fmt.Sprintf("%s left its baseline at %s and stayed off for %d of %d-minute buckets (baseline %d min, %s sampled requests)",
				sig, at.Format(time.RFC3339), n, w, base.minutes, fmtF(base.requests)),
		}
	}
	base := baselineOf(before(bs, alertAt), m)
	return Onset{BaselineErrorRate: base.errRate, BaselineP95Ms: nanZero(base.p95), ErrorThreshold: base.errThr, P95ThresholdMs: infZero(base.p95Thr),
		BaselineFrom: base.from, BaselineMinutes: base.minutes, BaselineRequests: base.requests, BucketMinutes: w,
		Reason: "no sustained departure from the baseline"}
}

func before(bs []bucket, t time.Time) []bucket {
	for i, b := range bs {
		if !b.at.Before(t) {
			return bs[:i]
		}
	}
	return bs
}

func nanZero(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}

func infZero(v float64) float64 {
	if math.IsInf(v, 0) {
		return 0
	}
	return v
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
