package tools

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

type alternativeFacts struct {
	trafficRatio *float64
	coRegressed  []string
	// thresholds are the p95 thresholds (ms) of each co-regressed service's
	// own onset: a span at or above it is failing, like one with an error.
	thresholds map[string]float64
	// load is each co-regressed service's request rate from its onset on
	// over its baseline's (nil when unknown).
	load map[string]*float64
	// onsets are every other service's own onsets, however far from this
	// one's: the origin of the failures (origin.go) must have one.
	onsets map[string]Onset
	// series are each co-regressed service's minutes: fewer calls
	// (fewercalls.go) reads its requests from them.
	series map[string][]Minute
}

// alternatives derives the facts that point away from a release: how much
// inbound traffic rose from the onset on (inboundMinutes: the root spans, or
// the entry spans of a service that callers reach), and which other services
// left their baselines within CoRegressionWindow of the onset.
func alternatives(roots, versions, others, othersErr signoz.Response, alertAt time.Time, on Onset) (alternativeFacts, error) {
	var out alternativeFacts
	onset := *on.At
	inbound, err := inboundMinutes(roots, versions, on.BaselineFrom, onset)
	if err != nil {
		return out, err
	}
	out.trafficRatio = trafficRatio(inbound, on.BaselineFrom, onset)
	bySvc, err := perMinuteBy(others, othersErr)
	if err != nil {
		return out, err
	}
	out.thresholds, out.load, out.onsets, out.series = map[string]float64{}, map[string]*float64{}, map[string]Onset{}, map[string][]Minute{}
	for svc, ms := range bySvc {
		o := FindOnset(ms, alertAt, DefaultMargins)
		if o.At == nil {
			continue
		}
		out.onsets[svc] = o
		if d := o.At.Sub(onset); d >= -CoRegressionWindow && d <= CoRegressionWindow {
			out.coRegressed = append(out.coRegressed, svc)
			out.thresholds[svc] = o.P95ThresholdMs
			out.load[svc] = trafficRatio(ms, o.BaselineFrom, *o.At)
			out.series[svc] = ms
		}
	}
	sort.Strings(out.coRegressed)
	return out, nil
}

// inboundMinutes is the per-minute series the inbound traffic ratio is
// read from: the service's root spans, unless fewer than half of its entry
// spans (server and consumer spans, from the per-version series) in the
// baseline [from, onset) are roots. A service behind a caller has no root
// span at all (its server spans' parents are the caller's client spans), so
// a surge of its callers' requests would otherwise go unmeasured: the
// stranger corpus's st-promo-surge-search-api, where persona:liar's
// retry_storm was allowed for want of the ratio.
func inboundMinutes(roots, versions signoz.Response, from, onset time.Time) ([]Minute, error) {
	rootMinutes, err := perMinute(roots, roots)
	if err != nil {
		return nil, err
	}
	counts, err := versionCounts(versions)
	if err != nil {
		return nil, err
	}
	byTs := map[int64]float64{}
	for _, c := range counts {
		for ts, n := range c {
			byTs[ts] += n
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
		return entries, nil
	}
	return rootMinutes, nil
}

// trafficRatio is the mean requests per minute from the onset to the last
// minute with data, over the mean of the onset's baseline [from, onset); nil
// when either is unknown. Counts are sampled, the ratio is not.
func trafficRatio(ms []Minute, from, onset time.Time) *float64 {
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
