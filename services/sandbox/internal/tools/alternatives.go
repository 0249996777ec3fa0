package tools

import (
	"math"
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
}

// alternatives derives the facts that point away from a release: how much
// inbound traffic rose from the onset on, and which other services left their
// baselines within CoRegressionWindow of the onset.
func alternatives(roots, others, othersErr signoz.Response, alertAt time.Time, on Onset) (alternativeFacts, error) {
	var out alternativeFacts
	onset := *on.At
	rootMinutes, err := perMinute(roots, roots)
	if err != nil {
		return out, err
	}
	out.trafficRatio = trafficRatio(rootMinutes, on.BaselineFrom, onset)
	bySvc, err := perMinuteBy(others, othersErr)
	if err != nil {
		return out, err
	}
	out.thresholds, out.load = map[string]float64{}, map[string]*float64{}
	for svc, ms := range bySvc {
		o := FindOnset(ms, alertAt, DefaultMargins)
		if o.At == nil {
			continue
		}
		if d := o.At.Sub(onset); d >= -CoRegressionWindow && d <= CoRegressionWindow {
			out.coRegressed = append(out.coRegressed, svc)
			out.thresholds[svc] = o.P95ThresholdMs
			out.load[svc] = trafficRatio(ms, o.BaselineFrom, *o.At)
		}
	}
	sort.Strings(out.coRegressed)
	return out, nil
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
