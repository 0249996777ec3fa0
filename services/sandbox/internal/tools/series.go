package tools

import (
	"fmt"
	"math"
	"time"

	"agentk/services/sandbox/internal/signoz"
)

// A labelFunc names the group a series belongs to ("" drops the series).
type labelFunc func(signoz.Series) string

// labelOf returns the value of the first of keys a series carries, non-empty.
func labelOf(keys ...string) labelFunc {
	return func(s signoz.Series) string {
		for _, k := range keys {
			for _, l := range s.Labels {
				if l.Key.Name != k || l.Value == nil {
					continue
				}
				if v := fmt.Sprint(l.Value); v != "" {
					return v
				}
			}
		}
		return ""
	}
}

// samples calls add for every finite sample of aggregation index idx (any
// index when idx < 0) of a time-series response, with the series' group.
func samples(resp signoz.Response, label labelFunc, add func(group string, agg int, ts int64, v float64)) error {
	res, err := resp.TimeSeries()
	if err != nil {
		return fmt.Errorf("%w: %v", ErrBadResponse, err)
	}
	for _, r := range res {
		for _, b := range r.Aggregations {
			for _, s := range b.Series {
				g := label(s)
				if g == "" {
					continue
				}
				for _, v := range s.Values {
					if !math.IsNaN(v.Value) {
						add(g, b.Index, v.Timestamp, v.Value)
					}
				}
			}
		}
	}
	return nil
}

// minuteTable collects per-minute values by group.
type minuteTable map[string]map[int64]*Minute

func (t minuteTable) get(group string, ts int64) *Minute {
	m := t[group]
	if m == nil {
		m = map[int64]*Minute{}
		t[group] = m
	}
	if x, ok := m[ts]; ok {
		return x
	}
	x := &Minute{At: time.UnixMilli(ts).UTC(), P95Ms: math.NaN()}
	m[ts] = x
	return x
}

// perMinuteGrouped merges a grouped count/p95 series and a grouped error
// count series into each group's minutes (unsorted).
func perMinuteGrouped(all, errs signoz.Response, label labelFunc) (map[string][]Minute, error) {
	t := minuteTable{}
	err := samples(all, label, func(g string, agg int, ts int64, v float64) {
		switch agg {
		case 0:
			t.get(g, ts).Requests += v
		case 1:
			t.get(g, ts).P95Ms = v / 1e6
		}
	})
	if err != nil {
		return nil, err
	}
	err = samples(errs, label, func(g string, agg int, ts int64, v float64) {
		if agg == 0 {
			t.get(g, ts).Errors += v
		}
	})
	if err != nil {
		return nil, err
	}
	out := map[string][]Minute{}
	for g, m := range t {
		for _, x := range m {
			out[g] = append(out[g], *x)
		}
	}
	return out, nil
}

// perMinuteBy splits grouped series by their service.name label.
func perMinuteBy(all, errs signoz.Response) (map[string][]Minute, error) {
	return perMinuteGrouped(all, errs, labelOf("service.name"))
}
