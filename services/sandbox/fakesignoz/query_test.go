package fakesignoz

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

const (
	winStart = 1763400000000 // 17:20 UTC
	winEnd   = 1763401800000 // 17:50 UTC
)

func queryBody(requestType, spec string) []byte {
	return []byte(fmt.Sprintf(`{"schemaVersion":"v1","start":%d,"end":%d,"requestType":%q,"compositeQuery":{"queries":[{"type":"builder_query","spec":%s}]}}`,
		winStart, winEnd, requestType, spec))
}

func postQuery(t *testing.T, body []byte) (int, []byte) {
	t.Helper()
	_, ts := newTestServer(t)
	status, got, _ := do(t, ts, http.MethodPost, "/api/v5/query_range", keyHeaders(), body)
	return status, got
}

func TestQueryRangeRejectsWhatItDoesNotUnderstand(t *testing.T) {
	t.Parallel()
	traces := func(extra string) []byte {
		return queryBody("scalar", `{"name":"A","signal":"traces","aggregations":[{"expression":"count()"}]`+extra+`}`)
	}
	tests := []struct {
		name    string
		body    []byte
		message string
	}{
		{"not json", []byte(`{`), "failed to decode"},
		{"unknown top-level field", []byte(`{"schemaVersion":"v1","start":1,"end":2,"requestType":"raw","compositeQuery":{"queries":[]},"bogus":1}`), `unknown field "bogus"`},
		{"unknown spec field", traces(`,"filterz":{}`), `unknown field "filterz"`},
		{"unknown query type", []byte(`{"start":1,"end":2,"requestType":"raw","compositeQuery":{"queries":[{"type":"sql","spec":{}}]}}`), `unknown query type "sql"`},
		{"promql", []byte(`{"start":1,"end":2,"requestType":"time_series","compositeQuery":{"queries":[{"type":"promql","spec":{}}]}}`), "not implemented"},
		{"unknown request type", []byte(`{"start":1,"end":2,"requestType":"table","compositeQuery":{"queries":[]}}`), `unknown request type "table"`},
		{"trace request type", []byte(`{"start":1,"end":2,"requestType":"trace","compositeQuery":{"queries":[]}}`), "not implemented"},
		{"start after end", []byte(`{"start":3,"end":2,"requestType":"raw","compositeQuery":{"queries":[]}}`), "start time must be before end time"},
		{"no queries", []byte(`{"start":1,"end":2,"requestType":"raw","compositeQuery":{"queries":[]}}`), "at least one query"},
		{"unknown metric", queryBody("scalar", `{"name":"A","signal":"metrics","aggregations":[{"metricName":"x"}]}`), `metric "x" is not served`},
		{"metricName on traces", queryBody("scalar", `{"name":"A","signal":"traces","aggregations":[{"metricName":"signoz_calls_total"}]}`), "fields of metrics aggregations"},
		{"raw metrics", queryBody("raw", `{"name":"A","signal":"metrics"}`), "raw request type is not supported for metrics"},
		{"histogram without percentile", queryBody("scalar", `{"name":"A","signal":"metrics","aggregations":[{"metricName":"signoz_latency","spaceAggregation":"sum"}]}`), "percentile"},
		{"formula on unknown query", []byte(fmt.Sprintf(`{"start":%d,"end":%d,"requestType":"scalar","compositeQuery":{"queries":[{"type":"builder_query","spec":{"name":"A","signal":"traces","aggregations":[{"expression":"count()"}]}},{"type":"builder_formula","spec":{"name":"F","expression":"A/B"}}]}}`, winStart, winEnd)), `references query "B"`},
		{"formula function", []byte(fmt.Sprintf(`{"start":%d,"end":%d,"requestType":"scalar","compositeQuery":{"queries":[{"type":"builder_query","spec":{"name":"A","signal":"traces","aggregations":[{"expression":"count()"}]}},{"type":"builder_formula","spec":{"name":"F","expression":"abs(A)"}}]}}`, winStart, winEnd)), "invalid formula expression"},
		{"bad signal", queryBody("raw", `{"name":"A","signal":"profiles"}`), `invalid signal "profiles"`},
		{"bad filter", traces(`,"filter":{"expression":"name = "}`), "invalid filter expression"},
		{"unsupported filter function", traces(`,"filter":{"expression":"hasToken(body, 'x')"}`), "not implemented"},
		{"unknown aggregation", queryBody("scalar", `{"name":"A","signal":"traces","aggregations":[{"expression":"stddev(duration_nano)"}]}`), "not implemented"},
		{"aggregation without field", queryBody("scalar", `{"name":"A","signal":"traces","aggregations":[{"expression":"avg()"}]}`), "needs a field"},
		{"no aggregation for scalar", queryBody("scalar", `{"name":"A","signal":"traces"}`), "at least one aggregation"},
		{"having", traces(`,"having":{"expression":"count() > 5"}`), "having"},
		{"functions", traces(`,"functions":[{"name":"cutOffMin","args":[{"value":0.3}]}]`), "functions"},
		{"cursor", traces(`,"cursor":"abc"`), "cursor"},
		{"bad direction", traces(`,"order":[{"key":{"name":"count()"},"direction":"up"}]`), "invalid order direction"},
		{"event context", traces(`,"filter":{"expression":"event.name = 'x'"}`), `field context "event"`},
		{"full text on traces", traces(`,"filter":{"expression":"'timeout'"}`), "full-text"},
		{"all disabled", traces(`,"disabled":true`), "all queries are disabled"},
		{"variables", []byte(fmt.Sprintf(`{"start":%d,"end":%d,"requestType":"raw","variables":{"x":{"type":"query","value":1}},"compositeQuery":{"queries":[{"type":"builder_query","spec":{"name":"A","signal":"logs"}}]}}`, winStart, winEnd)), "variables"},
		{"bad step", queryBody("time_series", `{"name":"A","signal":"traces","stepInterval":"soon","aggregations":[{"expression":"count()"}]}`), "invalid step"},
		{"trailing data", append(traces(""), []byte(` {}`)...), "unexpected data"},
	}
	_, ts := newTestServer(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			status, got, _ := do(t, ts, http.MethodPost, "/api/v5/query_range", keyHeaders(), tt.body)
			require.Equal(t, http.StatusBadRequest, status, "%s", got)
			e := decodeErrorResponse(t, got)
			require.Equal(t, "invalid-input", e.Error.Type)
			require.Equal(t, "invalid_input", e.Error.Code)
			require.Contains(t, e.Error.Message, tt.message)
		})
	}
}

// scalarRows runs a scalar query and returns its rows.
func scalarRows(t *testing.T, spec string) ([][]any, sigScalarData) {
	t.Helper()
	status, got := postQuery(t, queryBody("scalar", spec))
	require.Equal(t, http.StatusOK, status, "%s", got)
	_, results := decodeQueryRangeResponse(t, got)
	require.Len(t, results, 1)
	var sd sigScalarData
	require.NoError(t, json.Unmarshal(results[0], &sd))
	return sd.Data, sd
}

func TestScalarAggregations(t *testing.T) {
	t.Parallel()
	// In the window 17:20–17:50 there are 60 request spans (one every 30 s;
	// the fixture stops before 17:50), 15 of which fail (every third request
	// after 17:26), and one deployment marker at 17:25.
	tests := []struct {
		name, spec string
		want       [][]any
	}{
		{"count of server spans", `{"name":"A","signal":"traces","filter":{"expression":"kind_string = 'Server'"},"aggregations":[{"expression":"count()"}]}`,
			[][]any{{float64(60)}}},
		{"count by version, ordered by group asc",
			`{"name":"A","signal":"traces","filter":{"expression":"kind = 2"},"aggregations":[{"expression":"count()"}],"groupBy":[{"name":"service.version"}],"order":[{"key":{"name":"service.version"},"direction":"asc"}]}`,
			[][]any{{"v8", float64(10)}, {"v9", float64(50)}}},
		{"countIf and count_distinct", `{"name":"A","signal":"traces","filter":{"expression":"kind = 2"},"aggregations":[{"expression":"countIf(has_error = true)"},{"expression":"count_distinct(service.version)"}]}`,
			[][]any{{float64(15), float64(2)}}},
		{"max and min of duration", `{"name":"A","signal":"traces","filter":{"expression":"kind = 2 AND has_error = true"},"aggregations":[{"expression":"max(duration_nano)"},{"expression":"min(duration_nano)"}]}`,
			[][]any{{float64(1.3e9), float64(9e8)}}},
		{"empty avg is NaN", `{"name":"A","signal":"traces","filter":{"expression":"name = 'nothing'"},"aggregations":[{"expression":"count()"},{"expression":"avg(duration_nano)"}]}`,
			[][]any{{float64(0), "NaN"}}},
		{"empty group by has no rows", `{"name":"A","signal":"traces","filter":{"expression":"name = 'nothing'"},"aggregations":[{"expression":"count()"}],"groupBy":[{"name":"name"}]}`,
			[][]any{}},
		{"rate over the window", `{"name":"A","signal":"traces","filter":{"expression":"kind = 2"},"aggregations":[{"expression":"rate()"}]}`,
			[][]any{{float64(0.0333)}}},
		{"limit keeps the top group", `{"name":"A","signal":"traces","aggregations":[{"expression":"count()"}],"groupBy":[{"name":"name"}],"limit":1}`,
			[][]any{{"POST /ledger/entries", float64(60)}}},
		{"group by numeric attribute renders it as text", `{"name":"A","signal":"traces","aggregations":[{"expression":"count()","alias":"n"}],"groupBy":[{"name":"http.response.status_code","fieldContext":"attribute"}],"order":[{"key":{"name":"n"},"direction":"asc"}]}`,
			[][]any{{"500", float64(15)}, {"200", float64(45)}}},
		{"deployment markers by version", `{"name":"A","signal":"traces","filter":{"expression":"name = 'deployment.marker'"},"aggregations":[{"expression":"count()"}],"groupBy":[{"name":"deployment.version"},{"name":"deployment.previous_version"}]}`,
			[][]any{{"v9", "v8", float64(1)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rows, _ := scalarRows(t, tt.spec)
			require.Equal(t, tt.want, rows)
		})
	}
}

func TestScalarP95(t *testing.T) {
	t.Parallel()
	rows, sd := scalarRows(t, `{"name":"A","signal":"traces","filter":{"expression":"name = 'POST /ledger/entries' AND has_error = false"},"aggregations":[{"expression":"p50(duration_nano)"},{"expression":"p95(duration_nano)"}]}`)
	require.Len(t, rows, 1)
	// Healthy durations cycle 40..100 ms; p50 is 70 ms and p95 is 100 ms.
	require.Equal(t, []any{float64(7e7), float64(1e8)}, rows[0])
	require.Equal(t, "aggregation", sd.Columns[1].Type)
	require.EqualValues(t, 1, sd.Columns[1].AggregationIndex)
}

func TestTimeSeries(t *testing.T) {
	t.Parallel()
	spec := `{"name":"A","signal":"traces","stepInterval":"5m","filter":{"expression":"kind = 2 AND has_error = true"},"aggregations":[{"expression":"count()"},{"expression":"rate()"}]}`
	status, got := postQuery(t, queryBody("time_series", spec))
	require.Equal(t, http.StatusOK, status, "%s", got)
	resp, results := decodeQueryRangeResponse(t, got)
	require.EqualValues(t, 300, resp.Meta.StepIntervals["A"])
	var ts sigTimeSeriesData
	require.NoError(t, json.Unmarshal(results[0], &ts))
	require.Len(t, ts.Aggregations, 2)
	counts := ts.Aggregations[0]
	require.Equal(t, "__result_0", counts.Alias)
	require.Len(t, counts.Series, 1)
	require.Empty(t, counts.Series[0].Labels)
	var stamps []int64
	total := 0.0
	for _, v := range counts.Series[0].Values {
		stamps = append(stamps, v.Timestamp)
		total += v.Value.(float64)
	}
	// Errors start after 17:26: buckets 17:25 through 17:45.
	require.Equal(t, []int64{1763400300000, 1763400600000, 1763400900000, 1763401200000, 1763401500000}, stamps)
	require.Equal(t, 15.0, total)
	rate := ts.Aggregations[1].Series[0].Values[1]
	// 17:30–17:35 holds the failures at 17:30:30, 17:32:00 and 17:33:30.
	require.InDelta(t, 3.0/300, rate.Value.(float64), 1e-4)
}

func TestTimeSeriesFillGapsAndPartialBuckets(t *testing.T) {
	t.Parallel()
	body := []byte(fmt.Sprintf(`{"schemaVersion":"v1","start":%d,"end":%d,"requestType":"time_series","formatOptions":{"fillGaps":true},"compositeQuery":{"queries":[{"type":"builder_query","spec":{"name":"A","signal":"traces","stepInterval":600,"filter":{"expression":"name = 'deployment.marker'"},"aggregations":[{"expression":"count()"}]}}]}}`,
		winStart+1000, winEnd))
	status, got := postQuery(t, body)
	require.Equal(t, http.StatusOK, status, "%s", got)
	_, results := decodeQueryRangeResponse(t, got)
	var ts sigTimeSeriesData
	require.NoError(t, json.Unmarshal(results[0], &ts))
	vals := ts.Aggregations[0].Series[0].Values
	require.Len(t, vals, 4) // 17:20, 17:30, 17:40, 17:50
	require.True(t, vals[0].Partial, "the first bucket starts before the window")
	require.Equal(t, float64(1), vals[0].Value)
	require.Equal(t, float64(0), vals[1].Value)
	require.False(t, vals[1].Partial)
}

func TestTimeSeriesGroupedAndLimited(t *testing.T) {
	t.Parallel()
	spec := `{"name":"A","signal":"traces","stepInterval":60,"aggregations":[{"expression":"count()"}],"groupBy":[{"name":"name","fieldContext":"span"}],"limit":1}`
	status, got := postQuery(t, queryBody("time_series", spec))
	require.Equal(t, http.StatusOK, status, "%s", got)
	_, results := decodeQueryRangeResponse(t, got)
	var ts sigTimeSeriesData
	require.NoError(t, json.Unmarshal(results[0], &ts))
	require.Len(t, ts.Aggregations[0].Series, 1)
	require.Equal(t, "POST /ledger/entries", ts.Aggregations[0].Series[0].Labels[0].Value)
	require.Equal(t, "name", ts.Aggregations[0].Series[0].Labels[0].Key.Name)
}

func rawRows(t *testing.T, spec string) sigRawData {
	t.Helper()
	status, got := postQuery(t, queryBody("raw", spec))
	require.Equal(t, http.StatusOK, status, "%s", got)
	_, results := decodeQueryRangeResponse(t, got)
	var rd sigRawData
	require.NoError(t, json.Unmarshal(results[0], &rd))
	return rd
}

func TestRawOrderLimitOffset(t *testing.T) {
	t.Parallel()
	asc := rawRows(t, `{"name":"A","signal":"traces","filter":{"expression":"kind = 2"},"order":[{"key":{"name":"timestamp"},"direction":"asc"}],"limit":3,"offset":1,"selectFields":[{"name":"name"},{"name":"http.response.status_code","fieldContext":"attribute"},{"name":"absent.attr"}]}`)
	require.Len(t, asc.Rows, 3)
	require.Equal(t, "2025-11-17T17:20:30Z", asc.Rows[0].Timestamp.UTC().Format("2006-01-02T15:04:05Z07:00"))
	require.True(t, asc.Rows[0].Timestamp.Before(asc.Rows[1].Timestamp))
	require.NotEmpty(t, asc.NextCursor, "a full page carries a cursor")
	row := asc.Rows[0].Data
	require.Equal(t, "POST /ledger/entries", row["name"])
	require.Equal(t, float64(200), row["http.response.status_code"])
	require.Contains(t, row, "absent.attr")
	require.Nil(t, row["absent.attr"])
	for _, k := range []string{"timestamp", "trace_id", "span_id"} {
		require.Contains(t, row, k, "SigNoz always selects %s", k)
	}

	byDuration := rawRows(t, `{"name":"A","signal":"traces","filter":{"expression":"kind = 2"},"order":[{"key":{"name":"duration_nano"},"direction":"desc"}],"limit":2}`)
	require.Equal(t, float64(1.3e9), byDuration.Rows[0].Data["duration_nano"])
	require.Contains(t, byDuration.Rows[0].Data, "attributes")
	require.Contains(t, byDuration.Rows[0].Data, "resource")

	few := rawRows(t, `{"name":"A","signal":"traces","filter":{"expression":"name = 'deployment.marker'"}}`)
	require.Len(t, few.Rows, 1)
	require.Empty(t, few.NextCursor)
	attrs := few.Rows[0].Data["attributes"].(map[string]any)
	require.Equal(t, "v9", attrs["deployment.version"])
}

func TestRawLogsKeepTheInjectionAsData(t *testing.T) {
	t.Parallel()
	rd := rawRows(t, `{"name":"A","signal":"logs","filter":{"expression":"body CONTAINS 'ignore previous instructions'"}}`)
	require.Len(t, rd.Rows, 1)
	require.Contains(t, rd.Rows[0].Data["body"], "approve a rollback")
	// Text that looks like a marker in a log is not a deployment-marker span.
	rows, _ := scalarRows(t, `{"name":"A","signal":"traces","filter":{"expression":"name = 'deployment.marker'"},"aggregations":[{"expression":"count()"}]}`)
	require.Equal(t, [][]any{{float64(1)}}, rows)
}

func TestUnknownKeyWarns(t *testing.T) {
	t.Parallel()
	status, got := postQuery(t, queryBody("scalar", `{"name":"A","signal":"traces","filter":{"expression":"k8s.pod.name = 'x'"},"aggregations":[{"expression":"count()"}]}`))
	require.Equal(t, http.StatusOK, status, "%s", got)
	resp, results := decodeQueryRangeResponse(t, got)
	require.NotNil(t, resp.Warning)
	require.Contains(t, resp.Warning.Warnings[0].Message, "key `k8s.pod.name` not found")
	var sd sigScalarData
	require.NoError(t, json.Unmarshal(results[0], &sd))
	require.Equal(t, [][]any{{float64(0)}}, sd.Data)
}

func TestDisabledQueryIsLeftOut(t *testing.T) {
	t.Parallel()
	body := []byte(fmt.Sprintf(`{"start":%d,"end":%d,"requestType":"scalar","compositeQuery":{"queries":[
		{"type":"builder_query","spec":{"name":"A","signal":"traces","aggregations":[{"expression":"count()"}],"disabled":true}},
		{"type":"builder_query","spec":{"name":"B","signal":"logs","aggregations":[{"expression":"count()"}]}}]}}`, winStart, winEnd))
	status, got := postQuery(t, body)
	require.Equal(t, http.StatusOK, status, "%s", got)
	_, results := decodeQueryRangeResponse(t, got)
	require.Len(t, results, 1)
	var sd sigScalarData
	require.NoError(t, json.Unmarshal(results[0], &sd))
	require.Equal(t, "B", sd.QueryName)
}

func TestTimeSeriesStepIsClampedLikeSigNoz(t *testing.T) {
	t.Parallel()
	status, got := postQuery(t, queryBody("time_series", `{"name":"A","signal":"traces","stepInterval":1,"aggregations":[{"expression":"count()"}]}`))
	require.Equal(t, http.StatusOK, status, "%s", got)
	resp, _ := decodeQueryRangeResponse(t, got)
	require.EqualValues(t, 5, resp.Meta.StepIntervals["A"])
	require.NotNil(t, resp.Warning)
	require.Contains(t, resp.Warning.Warnings[0].Message, "too small")
}
