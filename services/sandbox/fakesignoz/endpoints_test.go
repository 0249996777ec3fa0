package fakesignoz

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// successData decodes {"status":"success","data":...} into v.
func successData(t *testing.T, body []byte, v any) {
	t.Helper()
	var env struct {
		Status string          `json:"status"`
		Data   json.RawMessage `json:"data"`
	}
	require.NoError(t, json.Unmarshal(body, &env), "%s", body)
	require.Equal(t, "success", env.Status, "%s", body)
	require.NoError(t, json.Unmarshal(env.Data, v))
}

func get(t *testing.T, ts *httptest.Server, path string) (int, []byte) {
	t.Helper()
	status, body, _ := do(t, ts, http.MethodGet, path, keyHeaders(), nil)
	return status, body
}

func TestSpanMetricsEqualTheSpans(t *testing.T) {
	t.Parallel()
	inc := fixtureIncident(t)
	var total, errs float64
	var durations []float64
	for _, s := range inc.Spans {
		ms := s.Timestamp.UnixMilli()
		if ms < winStart || ms > winEnd || s.Resource["service.name"] != "ledger-svc" {
			continue
		}
		total++
		if s.StatusCode == 2 {
			errs++
		}
		durations = append(durations, float64(s.DurationNano)/1e6)
	}
	require.NotZero(t, errs)
	metric := func(agg string) string {
		return `{"name":"A","signal":"metrics","filter":{"expression":"service.name = 'ledger-svc'"},"aggregations":[` + agg + `]}`
	}
	rows, _ := scalarRows(t, metric(`{"metricName":"signoz_calls_total","timeAggregation":"increase","spaceAggregation":"sum"}`))
	require.Equal(t, [][]any{{total}}, rows)
	rows, _ = scalarRows(t, `{"name":"A","signal":"metrics","filter":{"expression":"service.name = 'ledger-svc' AND status.code = 'STATUS_CODE_ERROR'"},"aggregations":[{"metricName":"signoz_calls_total","timeAggregation":"increase","spaceAggregation":"sum"}]}`)
	require.Equal(t, [][]any{{errs}}, rows)
	rows, _ = scalarRows(t, metric(`{"metricName":"signoz_calls_total","timeAggregation":"rate","spaceAggregation":"sum"}`))
	require.InDelta(t, total/((winEnd-winStart)/1000.0), rows[0][0], 0.001)

	// p95 comes from the histogram buckets, so it lies within the bucket
	// holding the exact p95.
	sort.Float64s(durations)
	exact := quantile(durations, 0.95)
	rows, _ = scalarRows(t, metric(`{"metricName":"signoz_latency","timeAggregation":"rate","spaceAggregation":"p95"}`))
	got := rows[0][0].(float64)
	i := sort.SearchFloat64s(latencyBucketsMs, exact)
	require.LessOrEqual(t, got, latencyBucketsMs[i])
	if i > 0 {
		require.GreaterOrEqual(t, got, latencyBucketsMs[i-1])
	}
}

func TestHistogramQuantile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		counts []float64
		q      float64
		want   float64
	}{
		{"middle of first bucket", []float64{10, 0, 0}, 0.5, 0.5},
		{"interpolated in second", []float64{0, 10, 0}, 0.5, 1.5},
		{"inf bucket gives top bound", []float64{0, 0, 10}, 0.99, 2},
		{"empty is NaN", []float64{0, 0, 0}, 0.5, math.NaN()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := histogramQuantile(tt.q, []float64{1, 2}, tt.counts)
			if math.IsNaN(tt.want) {
				require.True(t, math.IsNaN(got))
				return
			}
			require.InDelta(t, tt.want, got, 1e-9)
		})
	}
}

func TestFormulaErrorRate(t *testing.T) {
	t.Parallel()
	body := []byte(fmt.Sprintf(`{"schemaVersion":"v1","start":%d,"end":%d,"requestType":"scalar","compositeQuery":{"queries":[
		{"type":"builder_query","spec":{"name":"A","signal":"traces","disabled":true,"filter":{"expression":"service.name = 'ledger-svc' AND has_error = true"},"aggregations":[{"expression":"count()"}]}},
		{"type":"builder_query","spec":{"name":"B","signal":"traces","disabled":true,"filter":{"expression":"service.name = 'ledger-svc'"},"aggregations":[{"expression":"count()"}]}},
		{"type":"builder_formula","spec":{"name":"F1","expression":"A * 100 / B"}}]}}`, winStart, winEnd))
	status, got := postQuery(t, body)
	require.Equal(t, http.StatusOK, status, "%s", got)
	_, results := decodeQueryRangeResponse(t, got)
	require.Len(t, results, 1, "disabled inputs are not returned")
	var sd sigScalarData
	decodeStrict(t, results[0], &sd)
	errRows, _ := scalarRows(t, `{"name":"A","signal":"traces","filter":{"expression":"service.name = 'ledger-svc' AND has_error = true"},"aggregations":[{"expression":"count()"}]}`)
	allRows, _ := scalarRows(t, `{"name":"A","signal":"traces","filter":{"expression":"service.name = 'ledger-svc'"},"aggregations":[{"expression":"count()"}]}`)
	want := errRows[0][0].(float64) * 100 / allRows[0][0].(float64)
	require.InDelta(t, want, sd.Data[0][0], 0.001)
	require.Equal(t, "F1", sd.QueryName)

	// Time series: per minute, grouped the same on both sides.
	body = []byte(fmt.Sprintf(`{"schemaVersion":"v1","start":%d,"end":%d,"requestType":"time_series","compositeQuery":{"queries":[
		{"type":"builder_query","spec":{"name":"A","signal":"metrics","stepInterval":60,"filter":{"expression":"status.code = 'STATUS_CODE_ERROR'"},"groupBy":[{"name":"service.name"}],"aggregations":[{"metricName":"signoz_calls_total","timeAggregation":"increase","spaceAggregation":"sum"}]}},
		{"type":"builder_query","spec":{"name":"B","signal":"metrics","stepInterval":60,"groupBy":[{"name":"service.name"}],"aggregations":[{"metricName":"signoz_calls_total","timeAggregation":"increase","spaceAggregation":"sum"}]}},
		{"type":"builder_formula","spec":{"name":"F1","expression":"A/B"}}]}}`, winStart, winEnd))
	status, got = postQuery(t, body)
	require.Equal(t, http.StatusOK, status, "%s", got)
	_, results = decodeQueryRangeResponse(t, got)
	require.Len(t, results, 3)
	var a, b, f sigTimeSeriesData
	decodeStrict(t, results[0], &a)
	decodeStrict(t, results[1], &b)
	decodeStrict(t, results[2], &f)
	errsAt := map[int64]float64{}
	for _, v := range a.Aggregations[0].Series[0].Values {
		errsAt[v.Timestamp] = v.Value.(float64)
	}
	require.NotEmpty(t, f.Aggregations[0].Series[0].Values)
	ratioAt := map[int64]any{}
	for _, v := range f.Aggregations[0].Series[0].Values {
		ratioAt[v.Timestamp] = v.Value
	}
	for _, v := range b.Aggregations[0].Series[0].Values {
		r, ok := ratioAt[v.Timestamp]
		require.True(t, ok, "a minute with calls has a ratio (missing errors count as 0)")
		require.InDelta(t, errsAt[v.Timestamp]/v.Value.(float64), r, 0.001)
	}
}

func TestRelativeRangeIsMeasuredFromTheReplayClock(t *testing.T) {
	t.Parallel()
	wall := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	inc := fixtureIncident(t)
	spec := `{"name":"A","signal":"traces","filter":{"expression":"service.name = 'ledger-svc'"},"aggregations":[{"expression":"count()"}]}`
	body := func(start, end time.Time) []byte {
		return []byte(fmt.Sprintf(`{"schemaVersion":"v1","start":%d,"end":%d,"requestType":"scalar","compositeQuery":{"queries":[{"type":"builder_query","spec":%s}]}}`,
			start.UnixMilli(), end.UnixMilli(), spec))
	}
	count := func(s *Server, b []byte) (float64, string) {
		ts := httptest.NewServer(s)
		t.Cleanup(ts.Close)
		status, got, _ := do(t, ts, http.MethodPost, "/api/v5/query_range", keyHeaders(), b)
		require.Equal(t, http.StatusOK, status, "%s", got)
		resp, results := decodeQueryRangeResponse(t, got)
		var sd sigScalarData
		decodeStrict(t, results[0], &sd)
		warn := ""
		if resp.Warning != nil {
			for _, w := range resp.Warning.Warnings {
				warn += w.Message + "\n"
			}
		}
		if len(sd.Data) == 0 {
			return 0, warn
		}
		return sd.Data[0][0].(float64), warn
	}
	// The replay clock is at the fixture's now; "the last 30 minutes" by the wall clock.
	replay := New(inc, Options{APIKey: testKey, Now: func() time.Time { return wall }, ReplayNow: func() time.Time { return fixtureNow }})
	got, warn := count(replay, body(wall.Add(-30*time.Minute), wall))
	want, _ := count(New(inc, Options{APIKey: testKey}), body(fixtureNow.Add(-30*time.Minute), fixtureNow))
	require.NotZero(t, want)
	require.Equal(t, want, got)
	require.Contains(t, warn, "replay clock")

	// Without a replay clock the same window is empty, and the answer says why.
	got, warn = count(New(inc, Options{APIKey: testKey, Now: func() time.Time { return wall }}), body(wall.Add(-30*time.Minute), wall))
	require.Zero(t, got)
	require.Contains(t, warn, "holds none of this incident's telemetry")

	// An absolute window far from the wall clock is taken as written.
	got, warn = count(replay, body(fixtureNow.Add(-30*time.Minute), fixtureNow))
	require.Equal(t, want, got)
	require.NotContains(t, warn, "replay clock")
}

func TestFieldKeysAndValues(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t)
	var keys gettableFieldKeys
	status, body := get(t, ts, "/api/v1/fields/keys?signal=traces")
	require.Equal(t, http.StatusOK, status, "%s", body)
	successData(t, body, &keys)
	require.True(t, keys.Complete)
	require.Contains(t, keys.Keys, "service.name")
	require.Equal(t, "resource", keys.Keys["service.name"][0].FieldContext)
	require.Equal(t, "bool", keys.Keys["has_error"][0].FieldDataType)
	require.Equal(t, "number", keys.Keys["http.response.status_code"][0].FieldDataType)

	status, body = get(t, ts, "/api/v1/fields/keys?signal=traces&searchText=status&fieldContext=attribute")
	require.Equal(t, http.StatusOK, status)
	keys = gettableFieldKeys{}
	successData(t, body, &keys)
	for name, ks := range keys.Keys {
		require.Contains(t, name, "status")
		require.Equal(t, "attribute", ks[0].FieldContext)
	}

	status, body = get(t, ts, "/api/v1/fields/keys?signal=traces&limit=2")
	require.Equal(t, http.StatusOK, status)
	keys = gettableFieldKeys{}
	successData(t, body, &keys)
	require.False(t, keys.Complete)
	require.Len(t, keys.Keys, 2)

	var vals gettableFieldValues
	status, body = get(t, ts, "/api/v1/fields/values?signal=traces&name=service.version")
	require.Equal(t, http.StatusOK, status, "%s", body)
	successData(t, body, &vals)
	require.Equal(t, []string{"v8", "v9"}, vals.Values.StringValues)

	vals = gettableFieldValues{}
	status, body = get(t, ts, "/api/v1/fields/values?signal=metrics&name=status.code&metricName=signoz_calls_total")
	require.Equal(t, http.StatusOK, status, "%s", body)
	successData(t, body, &vals)
	require.Contains(t, vals.Values.StringValues, "STATUS_CODE_ERROR")

	for _, bad := range []string{"/api/v1/fields/keys", "/api/v1/fields/keys?signal=profiles", "/api/v1/fields/values?signal=traces", "/api/v1/fields/keys?signal=traces&limit=x"} {
		status, body = get(t, ts, bad)
		require.Equal(t, http.StatusBadRequest, status, bad)
		require.Equal(t, "invalid-input", decodeErrorResponse(t, body).Error.Type)
	}
}

func TestUnknownAPIRouteSaysSo(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t)
	status, body := get(t, ts, "/api/v1/pipelines")
	require.Equal(t, http.StatusNotFound, status)
	require.Contains(t, decodeErrorResponse(t, body).Error.Message, "fakesignoz serves a subset")
	status, body, _ = do(t, ts, http.MethodDelete, "/api/v2/rules/24", keyHeaders(), nil)
	require.Equal(t, http.StatusMethodNotAllowed, status, "%s", body)
}
