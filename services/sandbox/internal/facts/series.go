// Package facts computes the measured facts of service_overview from the
// SigNoz responses the tools package planned: pure functions from responses
// and the onset to contracts values, one fact per file, each with its table
// test. Which query to send and the text the model reads stay in tools;
// facts never imports it.
package facts

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"agentk/services/sandbox/internal/signoz"
)

// ErrBadResponse is returned when a response cannot be read as the series a
// fact needs.
var ErrBadResponse = errors.New("facts: unusable SigNoz response")

// Minute is one minute of a series of spans. Counts are of the spans SigNoz
// stored, so with trace sampling they are sampled requests: only rates and
// ratios of them mean anything.
type Minute struct {
	At       time.Time
	Requests float64
	Errors   float64
	// Retries are the attempts beyond each span's first that a retry
	// attribute counted inside one span (AddRetryAttempts), already in
	// Requests: each follows a failed attempt.
	Retries float64
	// P95Ms is NaN when the minute had no spans.
	P95Ms float64
}

// A LabelFunc names the group a series belongs to ("" drops the series).
type LabelFunc func(signoz.Series) string

// LabelOf returns the value of the first of keys a series carries, non-empty.
func LabelOf(keys ...string) LabelFunc {
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

// All puts every series in one group, "all".
func All(signoz.Series) string { return "all" }

// Samples calls add for every finite sample of a time-series response, with
// the series' group and the index of its aggregation. It returns
// ErrBadResponse when resp is not a time series.
func Samples(resp signoz.Response, label LabelFunc, add func(group string, agg int, ts int64, v float64)) error {
	return EachSeries(resp, label, func(g string, agg int, s signoz.Series) {
		for _, v := range s.Values {
			if !math.IsNaN(v.Value) {
				add(g, agg, v.Timestamp, v.Value)
			}
		}
	})
}

// EachSeries calls fn for every series of a time-series response that label
// names, with its group and the index of its aggregation. It returns
// ErrBadResponse when resp is not a time series.
func EachSeries(resp signoz.Response, label LabelFunc, fn func(group string, agg int, s signoz.Series)) error {
	res, err := resp.TimeSeries()
	if err != nil {
		return fmt.Errorf("%w: %v", ErrBadResponse, err)
	}
	for _, r := range res {
		for _, b := range r.Aggregations {
			for _, s := range b.Series {
				if g := label(s); g != "" {
					fn(g, b.Index, s)
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

// PerMinuteGrouped merges a grouped series of count (aggregation 0) and p95
// in nanoseconds (aggregation 1) and a grouped series of error counts
// (aggregation 0) into each group's minutes, unsorted. It returns
// ErrBadResponse when either is not a time series.
func PerMinuteGrouped(all, errs signoz.Response, label LabelFunc) (map[string][]Minute, error) {
	t := minuteTable{}
	err := Samples(all, label, func(g string, agg int, ts int64, v float64) {
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
	err = Samples(errs, label, func(g string, agg int, ts int64, v float64) {
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

// PerMinute merges the per-minute count/p95 and error count series of one
// group, sorted by time.
func PerMinute(all, errs signoz.Response) ([]Minute, error) {
	by, err := PerMinuteGrouped(all, errs, All)
	if err != nil {
		return nil, err
	}
	out := by["all"]
	slices.SortFunc(out, func(x, y Minute) int { return x.At.Compare(y.At) })
	return out, nil
}

// LabelJoin names a series by the values of every key, joined by " ".
func LabelJoin(keys ...string) LabelFunc {
	return func(s signoz.Series) string {
		var parts []string
		for _, k := range keys {
			v := LabelOf(k)(s)
			if v == "" {
				return ""
			}
			parts = append(parts, v)
		}
		return strings.Join(parts, " ")
	}
}
