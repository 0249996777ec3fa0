package tools

import (
	"fmt"
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

// perMinuteBy splits grouped series by their service.name label.
func perMinuteBy(all, errs signoz.Response) (map[string][]Minute, error) {
	a, err := all.TimeSeries()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadResponse, err)
	}
	e, err := errs.TimeSeries()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadResponse, err)
	}
	bySvc := map[string]map[int64]*Minute{}
	get := func(svc string, ts int64) *Minute {
		m := bySvc[svc]
		if m == nil {
			m = map[int64]*Minute{}
			bySvc[svc] = m
		}
		if x, ok := m[ts]; ok {
			return x
		}
		x := &Minute{At: time.UnixMilli(ts).UTC(), P95Ms: math.NaN()}
		m[ts] = x
		return x
	}
	label := func(s signoz.Series) string {
		for _, l := range s.Labels {
			if l.Key.Name == "service.name" {
				return fmt.Sprint(l.Value)
			}
		}
		return ""
	}
	for _, r := range a {
		for _, b := range r.Aggregations {
			for _, s := range b.Series {
				svc := label(s)
				if svc == "" {
					continue
				}
				for _, v := range s.Values {
					if math.IsNaN(v.Value) {
						continue
					}
					switch b.Index {
					case 0:
						get(svc, v.Timestamp).Requests += v.Value
					case 1:
						get(svc, v.Timestamp).P95Ms = v.Value / 1e6
					}
				}
			}
		}
	}
	for _, r := range e {
		for _, b := range r.Aggregations {
			if b.Index != 0 {
				continue
			}
			for _, s := range b.Series {
				svc := label(s)
				if svc == "" {
					continue
				}
				for _, v := range s.Values {
					if !math.IsNaN(v.Value) {
						get(svc, v.Timestamp).Errors += v.Value
					}
				}
			}
		}
	}
	out := map[string][]Minute{}
	for svc, m := range bySvc {
		for _, x := range m {
			out[svc] = append(out[svc], *x)
		}
	}
	return out, nil
}
