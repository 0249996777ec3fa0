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
	RefineMiss = 0.01
)

var refineFields = []signoz.FieldKey{span("timestamp", "number"), span("has_error", "bool"), span("duration_nano", "number")}

// refineQuery asks for the affected service's spans in the onset's bucket,
// oldest first.
func refineQuery(c Call, on Onset) Query {
	from := on.At.UnixMilli()
	to := on.At.Add(time.Duration(max(1, on.BucketMinutes)) * time.Minute).UnixMilli()
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

// RefineOnset moves on.At later inside its bucket to the k-th on-baseline span
// before the first span off the baseline, where k is the least run of
// on-baseline spans that a regression failing a share r of spans (r measured
// from that first failing span on) shows with chance at most RefineMiss.
// With fewer than k spans before it, or no span off, on is returned as it
// is. The result is never earlier than on.At nor later than the first
// failing span, and the Reason says what moved it.
func RefineOnset(on Onset, marks []spanMark) Onset {
	if on.At == nil {
		return on
	}
	first := slices.IndexFunc(marks, func(m spanMark) bool { return m.off })
	if first <= 0 {
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
	if first < k {
		return on
	}
	at := marks[first-k].at.UTC()
	if !at.After(*on.At) {
		return on
	}
	bucketAt := *on.At
	on.At = &at
	on.Refined = fmt.Sprintf("refined inside the bucket from %s: the %d spans before the first span off the baseline (%s) are on it, and with a share %s of spans off since, a regression already under way shows none in %d spans with chance under %s",
		bucketAt.Format(time.RFC3339), k, marks[first].at.UTC().Format(time.RFC3339Nano), fmtF(r), k, fmtF(RefineMiss))
	return on
}
