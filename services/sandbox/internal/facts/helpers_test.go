package facts_test

import (
	"encoding/json"
	"math"
	"sort"
	"testing"
	"time"

	"agentk/services/sandbox/internal/signoz"

	"github.com/stretchr/testify/require"
)

// t0 is the start of every test's hour of data.
var t0 = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

// at is t0 plus i minutes.
func at(i int) time.Time { return t0.Add(time.Duration(i) * time.Minute) }

// ser is one series of a time-series response: its labels, the index of
// its aggregation and its value by minute (NaN is sent as SigNoz sends it).
type ser struct {
	labels map[string]any
	agg    int
	values map[int]float64
}

// minutes is a value by minute for minutes [from, to) from f.
func minutes(from, to int, f func(i int) float64) map[int]float64 {
	out := map[int]float64{}
	for i := from; i < to; i++ {
		out[i] = f(i)
	}
	return out
}

// response builds the time-series response SigNoz would send for ss, in
// its own JSON, decoded as the sandbox decodes it.
func response(t *testing.T, ss ...ser) signoz.Response {
	t.Helper()
	byAgg := map[int][]any{}
	for _, s := range ss {
		var labels []any
		keys := make([]string, 0, len(s.labels))
		for k := range s.labels {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			labels = append(labels, map[string]any{"key": map[string]any{"name": k}, "value": s.labels[k]})
		}
		var values []any
		idx := make([]int, 0, len(s.values))
		for i := range s.values {
			idx = append(idx, i)
		}
		sort.Ints(idx)
		for _, i := range idx {
			var v any = s.values[i]
			if math.IsNaN(s.values[i]) {
				v = "NaN"
			}
			values = append(values, map[string]any{"timestamp": at(i).UnixMilli(), "value": v})
		}
		byAgg[s.agg] = append(byAgg[s.agg], map[string]any{"labels": labels, "values": values})
	}
	var aggs []any
	for i := 0; i < 32; i++ {
		if series, ok := byAgg[i]; ok {
			aggs = append(aggs, map[string]any{"index": i, "series": series})
		}
	}
	res, err := json.Marshal(map[string]any{"queryName": "A", "aggregations": aggs})
	require.NoError(t, err)
	body, err := json.Marshal(map[string]any{"status": "success", "data": map[string]any{
		"type": signoz.RequestTimeSeries, "data": map[string]any{"results": []json.RawMessage{res}}}})
	require.NoError(t, err)
	r, err := signoz.Decode(body)
	require.NoError(t, err)
	return r
}

// rawResponse is a response of another type than a time series.
func rawResponse() signoz.Response { return signoz.Response{Type: signoz.RequestRaw} }

// labels is a series' labels from key, value pairs.
func labels(kv ...string) map[string]any {
	out := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

// flat is the same value in every minute of [from, to).
func flat(from, to int, v float64) map[int]float64 {
	return minutes(from, to, func(int) float64 { return v })
}

// sp is one span of a synthetic trace: its id, its parent's ("" for the
// root), its service and operation, its start (ms after t0), its duration
// (ms) and whether it has an error.
type sp struct {
	id, parent, svc, name string
	startMs, durMs        float64
	err                   bool
}

// traceRows are the raw rows of trace tid's spans as a trace query returns
// them (the columns tools' traceFields and originFields select).
func traceRows(tid string, spans ...sp) []signoz.RawRow {
	var rows []signoz.RawRow
	for _, s := range spans {
		rows = append(rows, signoz.RawRow{Timestamp: t0.Add(time.Duration(s.startMs * float64(time.Millisecond))), Data: map[string]any{
			"trace_id": tid, "span_id": s.id, "parent_span_id": s.parent, "service.name": s.svc, "has_error": s.err,
			"duration_nano": s.durMs * 1e6, "name": s.name, "kind_string": "SERVER"}})
	}
	return rows
}
