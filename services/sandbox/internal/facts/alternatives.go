package facts

import (
	"maps"
	"math"
	"slices"
	"sort"
	"time"

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
func Alternatives(roots, versions, others, othersErr signoz.Response, alertAt time.Time, on Onset) (AlternativeFacts, error) {
	var out AlternativeFacts
	onset := *on.At
	inbound, err := InboundMinutes(roots, versions, on.BaselineFrom, onset)
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
func InboundMinutes(roots, versions signoz.Response, from, onset time.Time) ([]Minute, error) {
	rootMinutes, err := PerMinute(roots, roots)
	if err != nil {
		return nil, err
	}
	counts, err := VersionCounts(versions)
	if err != nil {
		return nil, err
	}
	byTs := MinuteTotals(counts)
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
		return entries, nil
	}
	return rootMinutes, nil
}

// TrafficRatio is the mean requests per minute from the onset to the last
// minute with data, over the mean of the onset's baseline [from, onset); nil
// when either is unknown. Counts are sampled, the ratio is not.
func TrafficRatio(ms []Minute, from, onset time.Time) *float64 {
	var base, after float64
	var last time.Time
	for _, m := range ms {
		if m.At.After(last) {
			last = m.At
		}
		switch {
		case m.At.Before(from):
		case m.At.Before(onset):
			base += m.Requests
		default:
			after += m.Requests
		}
	}
	baseMin := onset.Sub(from).Minutes()
	afterMin := last.Sub(onset).Minutes() + 1
	if from.IsZero() || baseMin < 1 || afterMin < 1 || base == 0 {
		return nil
	}
	r := round((after / afterMin) / (base / baseMin))
	if math.IsNaN(r) || math.IsInf(r, 0) {
		return nil
	}
	return &r
}
