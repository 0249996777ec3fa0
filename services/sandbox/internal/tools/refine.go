package tools

import (
	"fmt"
	"math"
	"slices"
	"time"

	"agentk/services/sandbox/internal/signoz"
)

// The per-minute onset is the start of the first bucket off the baseline, up
// to one bucket early by construction; a release that started serving a few
// seconds into that bucket then looks as if it came after the regression it
// caused. The overview refines the onset inside its bucket from the
// service's own spans there: it may move later, never earlier, and only as
// far as the spans show the service still on its baseline.
const (
	// RefineSpans bounds the spans read from the onset's bucket (oldest
	// first); a regression that begins after them keeps the bucket's start.
	RefineSpans = 1000
	// RefineMiss is the chance accepted that a regression already under way
	// showed none of its failing spans among the on-baseline spans counted as
	// before it: with a share r of spans failing since, k on-baseline spans in
	// a row happen with chance (1−r)^k, so the onset goes back k such spans
	// before the first failing one, with (1−r)^k ≤ RefineMiss.
	RefineMiss = 0.05
)

var refineFields = []signoz.FieldKey{span("timestamp", "number"), span("has_error", "bool"), span("duration_nano", "number")}

// refineQuery asks for the affected service's spans from the onset over the
// departure's first Sustain buckets (those FindOnset saw off), oldest first.
func refineQuery(c Call, on Onset) Query {
	from := on.At.UnixMilli()
	to := on.At.Add(time.Duration(max(1, on.BucketMinutes)*DefaultMargins.Sustain) * time.Minute).UnixMilli()
	return Query{"onset_spans", signoz.NewRequest(signoz.RequestRaw, from, to, signoz.BuilderQuery{Name: "A", Signal: signoz.SignalTraces,
		Filter: signoz.Filter{Expression: serviceFilter(c.Service)}, Limit: RefineSpans, SelectFields: refineFields,
		Order: []signoz.OrderBy{{Key: signoz.OrderKey{Name: "timestamp"}, Direction: "asc"}}})}
}

// spanMark is one span of the onset's bucket: when, and whether it is off the
// baseline in the onset's signal.
type spanMark struct {
	at  time.Time
	off bool
}

// onsetMarks reads the bucket's spans, sorted, each judged off by the onset's
// signal: an error, or a duration at or above the p95 threshold.
func onsetMarks(on Onset, rows []signoz.RawRow) []spanMark {
	var out []spanMark
	for _, r := range rows {
		at := rowTime(r)
		if at.IsZero() {
			continue
		}
		var off bool
		switch on.Signal {
		case "error_rate":
			off, _ = attrValue(r.Data, "has_error").(bool)
		case "p95":
			v, ok := num(attrValue(r.Data, "duration_nano"))
			off = ok && on.P95ThresholdMs > 0 && v/1e6 >= on.P95ThresholdMs
		}
		out = append(out, spanMark{at: at, off: off})
	}
	slices.SortStableFunc(out, func(a, b spanMark) int { return a.at.Compare(b.at) })
	return out
}

// RefineOnset moves on.At later, to k on-baseline spans before the first span
// off the baseline after the split of the spans from on.At: the point that
// best divides them into a lower and a higher share off (binomial likelihood
// ratio), taken only where it is significant (2·ΔlogL ≥ RefineSplitLR), the
// share after is at least twice the share before, and the spans before it are
// on the baseline as a whole (a regression that worsened starts at its first
// stage, not at the worse one), so that a stray error of the baseline before
// the regression does not stand for its start. k is the least
// run of on-baseline spans that a regression failing a share r of spans (r
// measured from that first failing span on) shows with chance at most
// RefineMiss. With fewer than k spans before it, or no span off, on is
// returned as it is. The result is never earlier than on.At nor later than
// that first failing span, and Refined says what moved it.
func RefineOnset(on Onset, marks []spanMark) Onset {
	if on.At == nil {
		return on
	}
	from := splitMarks(marks)
	if from > 0 && offShare(marks[:from]) >= onBaseline(on) {
		// Before the split the service was off already (a regression
		// that worsened): the split is not its start.
		from = 0
	}
	first := slices.IndexFunc(marks[from:], func(m spanMark) bool { return m.off })
	if first < 0 {
		return on
	}
	first += from
	if first == 0 {
		return on
	}
	off := 0
	for _, m := range marks[first:] {
		if m.off {
			off++
		}
	}
	r := float64(off) / float64(len(marks)-first)
	k := 1
	if r < 1 {
		k = int(math.Ceil(math.Log(RefineMiss) / math.Log(1-r)))
	}
	// The k spans must be on the baseline: none off, or the run is too short.
	if first < k || slices.ContainsFunc(marks[first-k:first], func(m spanMark) bool { return m.off }) {
		return on
	}
	at := marks[first-k].at.UTC()
	if !at.After(*on.At) {
		return on
	}
	bucketAt := *on.At
	on.At = &at
	on.Refined = fmt.Sprintf("refined from %s: the %d spans before the first span off the baseline (%s) are on it, and with a share %s of spans off since, a regression already under way shows none in %d spans with chance under %s",
		bucketAt.Format(time.RFC3339), k, marks[first].at.UTC().Format(time.RFC3339Nano), fmtF(r), k, fmtF(RefineMiss))
	return on
}

// offShare is the share of marks off the baseline.
func offShare(marks []spanMark) float64 {
	off := 0
	for _, m := range marks {
		if m.off {
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
func splitMarks(marks []spanMark) int {
	var tot, totOff float64
	for _, m := range marks {
		tot++
		if m.off {
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
		if marks[s-1].off {
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
