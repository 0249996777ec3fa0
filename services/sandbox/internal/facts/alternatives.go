package facts

import (
	"maps"
	"math"
	"slices"
	"sort"
	"time"

	"agentk/platform/mutant"
	"agentk/services/sandbox/internal/signoz"
)

// CoRegressionWindow is how close another service's onset must be to count as
// the same event.
const CoRegressionWindow = 5 * time.Minute

// AlternativeFacts are the facts that point away from a release.
type AlternativeFacts struct {
	// TrafficRatio is the inbound requests per minute from the onset on
	// over the baseline's (TrafficRatio; nil when unknown).
	TrafficRatio *float64
	// CoRegressed are the other services whose onsets are within
	// CoRegressionWindow of this one's.
	CoRegressed []string
	// Thresholds are the p95 thresholds (ms) of each co-regressed service's
	// own onset: a span at or above it is failing, like one with an error.
	Thresholds map[string]float64
	// Load is each co-regressed service's request rate from its onset on
	// over its baseline's (nil when unknown).
	Load map[string]*float64
	// Onsets are every other service's own onsets, however far from this
	// one's: the origin of the failures (origin.go) must have one.
	Onsets map[string]Onset
	// Series are each co-regressed service's minutes: fewer calls
	// (fewercalls.go) reads its requests from them.
	Series map[string][]Minute
}

// Alternatives derives the facts that point away from a release: how much
// inbound traffic rose from the onset on (InboundMinutes: the root spans, or
// the entry spans of a service that callers reach), and which other services
// left their baselines within CoRegressionWindow of the onset.
func Alternatives(roots, versions signoz.Response, arrivals EntryArrivals, others, othersErr signoz.Response, alertAt time.Time, on Onset) (AlternativeFacts, error) {
	var out AlternativeFacts
	onset := *on.At
	inbound, err := InboundMinutes(roots, versions, arrivals, on.BaselineFrom, onset)
	if err != nil {
		return out, err
	}
	out.TrafficRatio = TrafficRatio(inbound, on.BaselineFrom, onset)
	bySvc, err := PerMinuteGrouped(others, othersErr, LabelOf("service.name"))
	if err != nil {
		return out, err
	}
	out.Thresholds, out.Load, out.Onsets, out.Series = map[string]float64{}, map[string]*float64{}, map[string]Onset{}, map[string][]Minute{}
	for svc, ms := range bySvc {
		o := FindOnset(ms, alertAt, DefaultMargins)
		if o.At == nil {
			continue
		}
		out.Onsets[svc] = o
		if d := o.At.Sub(onset); d >= -CoRegressionWindow && d <= CoRegressionWindow {
			out.CoRegressed = append(out.CoRegressed, svc)
			out.Thresholds[svc] = o.P95ThresholdMs
			out.Load[svc] = TrafficRatio(ms, o.BaselineFrom, *o.At)
			out.Series[svc] = ms
		}
	}
	sort.Strings(out.CoRegressed)
	return out, nil
}

// InboundMinutes is the per-minute series the inbound traffic ratio is
// read from: the service's root spans, unless fewer than half of its entry
// spans (server and consumer spans, from the per-version series) in the
// baseline [from, onset) are roots. A service behind a caller has no root
// span at all (its server spans' parents are the caller's client spans), so
// a surge of its callers' requests would otherwise go unmeasured: the
// stranger corpus's st-promo-surge-search-api, where persona:liar's
// retry_storm was allowed for want of the ratio.
//
// Server spans that share their parent span are attempts of one call, not
// requests (attempts: the server spans with a parent per minute, count and
// count_distinct(parent_span_id); RepeatedAttempts): a Temporal worker's
// activity attempts are RunActivity server spans beneath the one
// StartActivity span of the workflow, so a release whose retries multiply
// the attempts multiplied its "inbound" entry spans with them, and its calls
// per inbound request hid the storm (heldout9's
// fb9-temporal-activity-timeout-ticketing-worker: inbound 2.48x, calls per
// request 1.62x). A caller's own retries are client spans of their own
// with a server span each: still counted, once each.
//
// A batch consumer's entry spans count the messages they carried
// (arrivals.Batches; BatchMessages), each span as many arrivals as its
// batch's messages.
func InboundMinutes(roots, versions signoz.Response, arrivals EntryArrivals, from, onset time.Time) ([]Minute, error) {
	rootMinutes, err := PerMinute(roots, roots)
	if err != nil {
		return nil, err
	}
	counts, err := VersionCounts(versions)
	if err != nil {
		return nil, err
	}
	byTs := MinuteTotals(counts)
	repeats, err := RepeatedAttempts(arrivals.Attempts)
	if err != nil {
		return nil, err
	}
	extra, err := BatchMessages(arrivals.Batches)
	if err != nil {
		return nil, err
	}
	for ts, n := range repeats {
		if _, ok := byTs[ts]; ok {
			byTs[ts] = math.Max(byTs[ts]-n, 0)
		}
	}
	entries := make([]Minute, 0, len(byTs))
	for _, ts := range slices.Sorted(maps.Keys(byTs)) {
		entries = append(entries, Minute{At: time.UnixMilli(ts).UTC(), Requests: byTs[ts], P95Ms: math.NaN()})
	}
	inBaseline := func(ms []Minute) float64 {
		n := 0.0
		for _, m := range ms {
			if !m.At.Before(from) && m.At.Before(onset) {
				n += m.Requests
			}
		}
		return n
	}
	if r, e := inBaseline(rootMinutes), inBaseline(entries); e > 0 && r < e/2 {
		return withBatchMessages(entries, extra), nil
	}
	return withBatchMessages(rootMinutes, extra), nil
}

// TrafficRatio is the mean requests per minute from the onset to the last
// minute with data, over the mean of the onset's baseline [from, onset); nil
// when either is unknown. Counts are sampled, the ratio is not.
func TrafficRatio(ms []Minute, from, onset time.Time) *float64 {
	base, after, afterMin := split(ms, from, onset)
	baseMin := onset.Sub(from).Minutes()
	if from.IsZero() || baseMin < 1 || afterMin < 1 || base == 0 {
		return nil
	}
	r := round((after / afterMin) / (base / baseMin))
	if math.IsNaN(r) || math.IsInf(r, 0) {
		return nil
	}
	return &r
}

// aggPair sums resp's first two aggregations per minute (Unix
// milliseconds): aggregation 0 into a, 1 into b.
func aggPair(resp signoz.Response) (a, b map[int64]float64, err error) {
	a, b = map[int64]float64{}, map[int64]float64{}
	err = Samples(resp, All, func(_ string, agg int, ts int64, v float64) {
		switch agg {
		case 0:
			a[ts] += v
		case 1:
			b[ts] += v
		}
	})
	return a, b, err
}

// RepeatedAttempts reads the server spans with a parent per minute
// (aggregation 0: their count; 1: their distinct parent spans) and returns,
// per minute (Unix milliseconds), how many of them repeat a parent an
// earlier one of the minute had: the attempts of a call beyond its first.
// A refused or absent answer, or mutant sandbox.entry_attempts, reads as
// none.
func RepeatedAttempts(attempts signoz.Response) (map[int64]float64, error) {
	out := map[int64]float64{}
	if attempts.Refused != "" || attempts.Type == "" || mutant.Off(mutant.SandboxEntryAttempts) {
		return out, nil
	}
	count, distinct, err := aggPair(attempts)
	if err != nil {
		return nil, err
	}
	for ts, n := range count {
		if d, ok := distinct[ts]; ok && n > d {
			out[ts] = n - d
		}
	}
	return out, nil
}
