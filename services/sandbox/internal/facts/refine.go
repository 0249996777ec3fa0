package facts

import (
	"fmt"
	"math"
	"slices"
	"time"

	"agentk/platform/mutant"
	"agentk/services/sandbox/internal/signoz"
)

// The per-minute onset is the start of the first bucket off the baseline, up
// to one bucket early by construction; a release that started serving a few
// seconds into that bucket then looks as if it came after the regression it
// caused. The overview refines the onset inside its bucket from the
// service's own spans there: it may move later, never earlier, and only as
// far as the spans show the service still on its baseline.
const (
	// RefineMiss is the chance accepted that the regression began before
	// the refined onset (RefineOnset).
	RefineMiss = 0.05
)

// SpanMark is one span of the onset's bucket: when, and whether it is off the
// baseline in the onset's signal.
type SpanMark struct {
	At  time.Time
	Off bool
	// Ops are the operations the span belongs to (OpKeys).
	Ops []string
	// Trace is the span's trace id ("" unknown).
	Trace string
	// Version is the span's service.version ("" unknown; RefineByVersion).
	Version string
}

// OnsetMarks reads the bucket's spans, sorted, each judged off by the onset's
// signal: an error, or a duration at or above the p95 threshold.
func OnsetMarks(on Onset, rows []signoz.RawRow) []SpanMark {
	var out []SpanMark
	for _, r := range rows {
		at := RowTime(r)
		if at.IsZero() {
			continue
		}
		var off bool
		switch on.Signal {
		case "error_rate":
			off, _ = AttrValue(r.Data, "has_error").(bool)
			// An onset placed by a server's rejections (Onset.Status):
			// a rejection is off too (status.go).
			off = off || (on.Status != "" && StatusRejected(r.Data))
		case "p95":
			// A slow dependency's calls are judged by their own threshold.
			thr := on.P95ThresholdMs
			if on.Dependency != "" {
				thr = on.DependencyP95Ms
			}
			v, ok := signoz.ToFloat(AttrValue(r.Data, "duration_nano"))
			off = ok && thr > 0 && v/1e6 >= thr
		case "value_share":
			// A span carries the value whose share rose; a span without
			// the attribute says nothing either way.
			if AttrValue(r.Data, on.QualityKey) == nil {
				continue
			}
			off = on.QualityKey != "" && AttrString(r.Data, on.QualityKey) == on.QualityValue
		}
		ops := OpKeys(AttrString(r.Data, "name"), AttrString(r.Data, "kind_string"), AttrString(r.Data, "http.route"), AttrString(r.Data, "rpc.method"))
		out = append(out, SpanMark{At: at, Off: off, Ops: ops, Trace: AttrString(r.Data, "trace_id"), Version: ResourceValue(r.Data, "service.version")})
	}
	slices.SortStableFunc(out, func(a, b SpanMark) int { return a.At.Compare(b.At) })
	return out
}

// OpKeys are the operation names a span belongs to, as the operations'
// series name them: "name KIND", "route <r>", "rpc <m>".
func OpKeys(name, kind, route, method string) []string {
	var out []string
	if name != "" && kind != "" {
		out = append(out, name+" "+kind)
	}
	if route != "" {
		out = append(out, "route "+route)
	}
	if method != "" {
		out = append(out, "rpc "+method)
	}
	return out
}

// RefineOnset moves on.At later, to the RefineMiss quantile of when the
// regression began, judged from the spans between on.At and the first span
// off the baseline after the split of the spans from on.At: the point that
// best divides them into a lower and a higher share off (binomial likelihood
// ratio), taken only where it is significant (2·ΔlogL ≥ RefineSplitLR), the
// share after is at least twice the share before, and the spans before it are
// on the baseline as a whole (a regression that worsened starts at its first
// stage, not at the worse one), so that a stray error of the baseline before
// the regression does not stand for its start.
//
// The regression began at some t between on.At and that first failing span,
// equally likely anywhere a priori; a regression failing a share r of spans
// (r measured from the first failing span on) that began at t leaves the
// spans between t and the first failing one as they are with chance
// Π (1−r) over those on the baseline, r over those off. The onset is the
// time before which that posterior holds a share RefineMiss: the chance
// accepted that the regression began earlier. With no span off, on is
// returned as it is. The result is never earlier than on.At nor later than
// that first failing span, and Refined says what moved it.
//
// A pooled onset (Onset.Pooled) is returned as it is: it is the split of a
// sparse error series, placed already, and the spans of its first buckets
// hold too few failures to move it soundly (with its start a bucket before
// a margins' departure found later, it would move past that departure).
//
// The spans of one request (its entry span, a client span per attempt) are
// not independent: counted each as an observation of the baseline, five
// attempts of one quiet request would stand for five quiet requests and move
// the onset later than RefineMiss allows. The refinement is therefore also
// taken over requests (PerTrace), and the earlier of the two is kept: the
// per-request reading can only move the onset earlier.
func RefineOnset(on Onset, marks []SpanMark) Onset {
	spans := refineSpans(on, marks)
	if mutant.Off(mutant.SandboxRefinePerTrace) {
		return spans
	}
	return earlierOnset(spans, refineRequests(on, marks))
}

// unrefined is whether on stays as it is: unknown, or pooled.
func unrefined(on Onset) bool {
	return on.At == nil || (on.Pooled && !mutant.Off(mutant.SandboxPooledUnrefined))
}

// refineSpans is RefineOnset counting every span once.
func refineSpans(on Onset, marks []SpanMark) Onset {
	if unrefined(on) {
		return on
	}
	return refineOver(on, marks, "span")
}

// refineRequests is RefineOnset counting every request (trace) once.
func refineRequests(on Onset, marks []SpanMark) Onset {
	if unrefined(on) {
		return on
	}
	return refineOver(on, PerTrace(marks), "request")
}

// earlierOnset is whichever of a and b begins first (a on a tie).
func earlierOnset(a, b Onset) Onset {
	if a.At != nil && b.At != nil && b.At.Before(*a.At) {
		return b
	}
	return a
}

// PerTrace is one mark a trace, in the order of their first spans: off if
// any of its spans is off, at its first span's time, with every operation of
// its spans. A span with no trace id counts alone.
func PerTrace(marks []SpanMark) []SpanMark {
	var out []SpanMark
	at := map[string]int{}
	for _, m := range marks {
		i, ok := at[m.Trace]
		if m.Trace == "" || !ok {
			at[m.Trace] = len(out)
			m.Ops = slices.Clone(m.Ops)
			out = append(out, m)
			continue
		}
		g := &out[i]
		g.Off = g.Off || m.Off
		if m.At.Before(g.At) {
			g.At = m.At
		}
		g.Ops = AppendNew(g.Ops, m.Ops...)
	}
	slices.SortStableFunc(out, func(a, b SpanMark) int { return a.At.Compare(b.At) })
	return out
}

// refineOver is RefineOnset over marks, each counted as one observation
// (unit names one in Refined: a span, or a request, one trace).
func refineOver(on Onset, marks []SpanMark, unit string) Onset {
	from := splitMarks(marks)
	if from > 0 && offShare(marks[:from]) >= onBaseline(on) {
		// Before the split the service was off already (a regression
		// that worsened): the split is not its start.
		from = 0
	}
	first := slices.IndexFunc(marks[from:], func(m SpanMark) bool { return m.Off })
	if first < 0 {
		return on
	}
	first += from
	r := offShare(marks[first:])
	at := onsetQuantile(*on.At, marks[:first], marks[first].At, r)
	if !at.After(*on.At) {
		return on
	}
	bucketAt := *on.At
	on.At = &at
	on.Refined = fmt.Sprintf("refined from %s to the time before which the regression began with chance %s: %d %ss since %s came before the first %s off the baseline after the rise (%s), and a share %s of %ss is off from there on",
		bucketAt.Format(time.RFC3339), fmtF(RefineMiss), first, unit, bucketAt.Format(time.RFC3339), unit, marks[first].At.UTC().Format(time.RFC3339Nano), fmtF(r), unit)
	return on
}

// onsetQuantile is the RefineMiss quantile of the regression's start over
// [lo, firstOff], uniform a priori, given the spans before firstOff (see
// RefineOnset).
func onsetQuantile(lo time.Time, before []SpanMark, firstOff time.Time, r float64) time.Time {
	post := onsetPosterior(lo, before, firstOff, r)
	var total float64
	for _, s := range post {
		total += s.mass()
	}
	if total <= 0 {
		return lo
	}
	want, acc := RefineMiss*total, 0.0
	for _, s := range post {
		m := s.mass()
		if acc+m >= want && m > 0 {
			frac := (want - acc) / m
			return s.from.Add(time.Duration(frac * float64(s.to.Sub(s.from)))).UTC()
		}
		acc += m
	}
	return firstOff.UTC()
}

// startSegment is one stretch of the regression's possible start, from the
// span before it (lo for the first) to the next span (firstOff for the
// last), over which the posterior is flat at density (the likelihood of a
// start there, per second, unnormalised).
type startSegment struct {
	from, to time.Time
	density  float64
}

// mass is the segment's unnormalised posterior mass.
func (s startSegment) mass() float64 { return s.density * s.to.Sub(s.from).Seconds() }

// onsetPosterior is the posterior of the regression's start over [lo,
// firstOff], uniform a priori, given the spans before firstOff (see
// RefineOnset): one segment a gap between them, in time order,
// unnormalised.
func onsetPosterior(lo time.Time, before []SpanMark, firstOff time.Time, r float64) []startSegment {
	// like[i] is the likelihood of a start before span i (and after span
	// i−1): the spans from i on were seen as they were.
	like := make([]float64, len(before)+1)
	like[len(before)] = 1
	for i := len(before) - 1; i >= 0; i-- {
		f := 1 - r
		if before[i].Off {
			f = r
		}
		like[i] = like[i+1] * f
	}
	// Segment i runs from the span before it (lo for the first) to span i
	// (firstOff for the last).
	edge := func(i int) time.Time {
		switch {
		case i < 0:
			return lo
		case i >= len(before):
			return firstOff
		}
		return maxTime(lo, before[i].At)
	}
	out := make([]startSegment, len(like))
	for i := range like {
		out[i] = startSegment{from: edge(i - 1), to: edge(i), density: like[i]}
	}
	return out
}

// offShare is the share of marks off the baseline.
func offShare(marks []SpanMark) float64 {
	off := 0
	for _, m := range marks {
		if m.Off {
			off++
		}
	}
	return float64(off) / float64(len(marks))
}

// onBaseline is the share of spans off below which a stretch is still on the
// onset's baseline: its error-rate threshold, or for p95 the 5% of spans
// that may lie above a p95 threshold.
func onBaseline(on Onset) float64 {
	if on.Signal == "error_rate" {
		return on.ErrorThreshold
	}
	return 0.05
}

// RefineSplitLR is the least likelihood-ratio statistic (2·ΔlogL, χ² with one
// degree of freedom: 6.63 is p = 0.01) for the split of the onset's spans to
// count.
const RefineSplitLR = 6.63

// splitMarks is the index from which the spans' share off is significantly
// higher (at least twice) than before it, or 0.
func splitMarks(marks []SpanMark) int {
	var tot, totOff float64
	for _, m := range marks {
		tot++
		if m.Off {
			totOff++
		}
	}
	ll := func(e, n float64) float64 {
		if n == 0 || e == 0 || e == n {
			return 0
		}
		p := e / n
		return e*math.Log(p) + (n-e)*math.Log(1-p)
	}
	best, at := 0.0, 0
	var n, e float64
	for s := 1; s < len(marks); s++ {
		n++
		if marks[s-1].Off {
			e++
		}
		n2, e2 := tot-n, totOff-e
		if e2/n2 < 2*e/n || e2 == 0 {
			continue
		}
		if v := 2 * (ll(e, n) + ll(e2, n2) - ll(totOff, tot)); v >= RefineSplitLR && v > best {
			best, at = v, s
		}
	}
	return at
}
