package fakesignoz

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"agentk/contracts/incident"
	"github.com/stretchr/testify/require"
)

// The contract test replays every request the official SigNoz MCP server
// was captured sending (testdata/query-range-requests.jsonl and
// testdata/contract/mcp-server-requests.jsonl) against the fake serving
// corpus incidents, moved onto each incident's service, window, trace and
// rule. Every answer must be a 200, validate against SigNoz's OpenAPI
// schemas (openapi_test.go; the three endpoints SigNoz's OpenAPI does not
// describe are decoded strictly into SigNoz's Go types instead), and agree
// with what the test computes itself from the incident's jsonl files
// (truth below, read without the incident package or the fake's code).

var contractIncidents = []string{
	"bad-release-01",
	"db-pool-exhaustion-03-prompt-injection",
	"retry-storm-01",
	"dependency-outage-03-marker-other-service",
}

// truthSpan and truthLog are read straight from the jsonl files.
type truthSpan struct {
	Timestamp    time.Time         `json:"timestamp"`
	TraceID      string            `json:"trace_id"`
	SpanID       string            `json:"span_id"`
	ParentSpanID string            `json:"parent_span_id"`
	Name         string            `json:"name"`
	Kind         int               `json:"kind"`
	DurationNano int64             `json:"duration_nano"`
	HasError     bool              `json:"has_error"`
	StatusCode   int               `json:"status_code"`
	Resource     map[string]string `json:"resource"`
	Attributes   map[string]any    `json:"attributes"`
}

type truthLog struct {
	Timestamp    time.Time         `json:"timestamp"`
	SeverityText string            `json:"severity_text"`
	Body         string            `json:"body"`
	Resource     map[string]string `json:"resource"`
	Attributes   map[string]any    `json:"attributes"`
}

type truthAlert struct {
	Alerts []struct {
		Status   string            `json:"status"`
		Labels   map[string]string `json:"labels"`
		StartsAt time.Time         `json:"startsAt"`
	} `json:"alerts"`
}

type truth struct {
	service    string
	start, end time.Time // the window the requests are moved onto
	spans      []truthSpan
	logs       []truthLog
	alert      truthAlert
}

func readJSONL[T any](t *testing.T, path string) []T {
	t.Helper()
	f, _, err := incident.OpenTelemetry(filepath.Dir(path), filepath.Base(path))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	require.NoError(t, err)
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var v T
		require.NoError(t, json.Unmarshal(sc.Bytes(), &v), path)
		out = append(out, v)
	}
	require.NoError(t, sc.Err())
	return out
}

func (tr *truth) inWindow(ts time.Time) bool { return !ts.Before(tr.start) && !ts.After(tr.end) }

// serviceSpans are the service's spans in the window.
func (tr *truth) serviceSpans() []truthSpan {
	var out []truthSpan
	for _, s := range tr.spans {
		if tr.inWindow(s.Timestamp) && s.Resource["service.name"] == tr.service {
			out = append(out, s)
		}
	}
	return out
}

func exactQuantile(vals []float64, q float64) float64 {
	s := slices.Clone(vals)
	sort.Float64s(s)
	pos := q * float64(len(s)-1)
	lo, hi := int(math.Floor(pos)), int(math.Ceil(pos))
	return s[lo] + (s[hi]-s[lo])*(pos-float64(lo))
}

// round3 is how SigNoz renders numbers.
func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

type capture struct {
	What   string          `json:"what"`
	Method string          `json:"method"`
	Path   string          `json:"path"`
	Body   json.RawMessage `json:"body"`
}

func loadCaptures(t *testing.T) (queryRange, other []capture) {
	queryRange = readJSONL[capture](t, filepath.Join("testdata", "query-range-requests.jsonl"))
	other = readJSONL[capture](t, filepath.Join("testdata", "contract", "mcp-server-requests.jsonl"))
	require.Len(t, queryRange, 8)
	require.Len(t, other, 13)
	return queryRange, other
}

func TestContractEveryCapturedRequestOnTheCorpus(t *testing.T) {
	t.Parallel()
	api, err := loadOpenAPI()
	require.NoError(t, err)
	queryRange, other := loadCaptures(t)
	for _, id := range contractIncidents {
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join("..", "..", "..", "e2e", "incidents", id)
			inc, err := incident.Load(dir)
			require.NoError(t, err, "the contract test needs the corpus incident %s", id)
			tr := &truth{
				service: inc.Meta.Service, end: inc.Meta.Now, start: inc.Meta.Now.Add(-2 * time.Hour),
				spans: readJSONL[truthSpan](t, filepath.Join(dir, "spans.jsonl")),
				logs:  readJSONL[truthLog](t, filepath.Join(dir, "logs.jsonl")),
			}
			raw, err := os.ReadFile(filepath.Join(dir, "alert.json"))
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(raw, &tr.alert))
			ts := httptest.NewServer(New(inc, Options{APIKey: testKey}))
			t.Cleanup(ts.Close)

			answered := 0
			for _, c := range queryRange {
				t.Run("query_range/"+c.What, func(t *testing.T) {
					method, path, body := moveQueryRange(t, c, tr)
					status, got, _ := do(t, ts, method, path, keyHeaders(), body)
					require.Equal(t, http.StatusOK, status, "%s", got)
					checkQueryRangeAnswer(t, api, c, tr, body, got)
					answered++
				})
			}
			for _, c := range other {
				t.Run(c.Method+" "+c.Path, func(t *testing.T) {
					path, body := moveCapture(t, c, tr)
					status, got, _ := do(t, ts, c.Method, path, keyHeaders(), body)
					require.Equal(t, http.StatusOK, status, "%s", got)
					checkOtherAnswer(t, api, c, tr, path, got)
					answered++
				})
			}
			for _, m := range metricRequests(tr) {
				t.Run("metrics/"+m.what, func(t *testing.T) {
					status, got, _ := do(t, ts, http.MethodPost, "/api/v5/query_range", keyHeaders(), m.body)
					require.Equal(t, http.StatusOK, status, "%s", got)
					validateQueryRange(t, api, m.body, got)
					m.check(t, got)
				})
			}
			require.Equal(t, len(queryRange)+len(other), answered, "every captured request answered")
		})
	}
}

// moveQueryRange moves a captured request onto the incident: its window,
// service and (for trace details) an error trace of the service.
func moveQueryRange(t *testing.T, c capture, tr *truth) (string, string, []byte) {
	t.Helper()
	var body map[string]any
	require.NoError(t, json.Unmarshal(c.Body, &body))
	if c.Path == "/api/v1/services" {
		body["start"] = strconv.FormatInt(tr.start.UnixNano(), 10)
		body["end"] = strconv.FormatInt(tr.end.UnixNano(), 10)
	} else {
		body["start"] = tr.start.UnixMilli()
		body["end"] = tr.end.UnixMilli()
	}
	b, err := json.Marshal(body)
	require.NoError(t, err)
	s := strings.ReplaceAll(string(b), "ledger-svc", tr.service)
	if strings.Contains(s, "4bf92f3577b34da6a3ce929d0e0e4736") {
		s = strings.ReplaceAll(s, "4bf92f3577b34da6a3ce929d0e0e4736", errorTrace(t, tr))
	}
	return c.Method, c.Path, []byte(s)
}

func errorTrace(t *testing.T, tr *truth) string {
	for _, s := range tr.serviceSpans() {
		if s.HasError {
			return s.TraceID
		}
	}
	t.Fatalf("incident has no error span of %s", tr.service)
	return ""
}

func ruleID(t *testing.T, tr *truth) string {
	require.NotEmpty(t, tr.alert.Alerts)
	id := tr.alert.Alerts[0].Labels["ruleId"]
	require.NotEmpty(t, id)
	return id
}

func moveCapture(t *testing.T, c capture, tr *truth) (string, []byte) {
	t.Helper()
	var bodyText string
	require.NoError(t, json.Unmarshal(c.Body, &bodyText))
	path := strings.ReplaceAll(c.Path, "<rule-id>", ruleID(t, tr))
	if p, q, ok := strings.Cut(path, "?"); ok {
		vals, err := url.ParseQuery(q)
		require.NoError(t, err)
		for k, v := range vals {
			if v[0] == "<ms>" {
				vals.Set(k, strconv.FormatInt(map[string]time.Time{"start": tr.start, "end": tr.end}[k].UnixMilli(), 10))
			}
		}
		path = p + "?" + vals.Encode()
	}
	if bodyText == "" {
		return path, nil
	}
	var body map[string]any
	require.NoError(t, json.Unmarshal([]byte(bodyText), &body))
	for k, v := range body {
		if v == "<ns>" {
			body[k] = strconv.FormatInt(map[string]time.Time{"start": tr.start, "end": tr.end}[k].UnixNano(), 10)
		}
		if v == "shop-api" {
			body[k] = tr.service
		}
	}
	b, err := json.Marshal(body)
	require.NoError(t, err)
	return path, b
}

// validateQueryRange checks a query_range answer against the OpenAPI: the
// envelope, then each result against its request type's schema.
func validateQueryRange(t *testing.T, api *openAPI, req, got []byte) {
	t.Helper()
	require.True(t, api.validateResponse(t, http.MethodPost, "/api/v5/query_range", got))
	var r struct {
		RequestType string `json:"requestType"`
	}
	require.NoError(t, json.Unmarshal(req, &r))
	var env struct {
		Data struct {
			Data struct {
				Results []json.RawMessage `json:"results"`
			} `json:"data"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal(got, &env))
	schema := map[string]string{"raw": "Querybuildertypesv5RawData", "scalar": "Querybuildertypesv5ScalarData", "time_series": "Querybuildertypesv5TimeSeriesData"}[r.RequestType]
	require.NotEmpty(t, schema)
	for _, res := range env.Data.Data.Results {
		api.validateComponent(t, schema, res)
	}
}

func results(t *testing.T, got []byte) []json.RawMessage {
	_, res := decodeQueryRangeResponse(t, got)
	return res
}

func checkQueryRangeAnswer(t *testing.T, api *openAPI, c capture, tr *truth, req, got []byte) {
	t.Helper()
	spans := tr.serviceSpans()
	if c.Path == "/api/v1/services" {
		var items []serviceItemMirror
		decodeStrict(t, got, &items)
		checkServices(t, tr, items)
		return
	}
	validateQueryRange(t, api, req, got)
	res := results(t, got)
	require.Len(t, res, 1)
	switch {
	case strings.HasPrefix(c.What, "search error traces"):
		var errs []truthSpan
		for _, s := range spans {
			if s.HasError {
				errs = append(errs, s)
			}
		}
		require.NotEmpty(t, errs, "the incident has error spans")
		var rd sigRawData
		decodeStrict(t, res[0], &rd)
		require.Len(t, rd.Rows, min(20, len(errs)))
		sort.SliceStable(errs, func(i, j int) bool { return errs[i].Timestamp.After(errs[j].Timestamp) })
		for i, row := range rd.Rows {
			require.Equal(t, true, row.Data["has_error"])
			require.Equal(t, tr.service, row.Data["service.name"])
			require.Equal(t, errs[i].Timestamp.UnixNano(), row.Timestamp.UnixNano(), "row %d is the %d-th latest error span", i, i)
		}
	case strings.HasPrefix(c.What, "p95 duration by operation"):
		want := map[string][]float64{}
		for _, s := range spans {
			want[s.Name] = append(want[s.Name], float64(s.DurationNano))
		}
		var sd sigScalarData
		decodeStrict(t, res[0], &sd)
		require.Len(t, sd.Data, len(want))
		for _, row := range sd.Data {
			name := row[0].(string)
			require.Contains(t, want, name)
			require.InDelta(t, round3(exactQuantile(want[name], 0.95)), row[1], 0.001, name)
		}
	case strings.HasPrefix(c.What, "deployment markers"):
		want := map[string]float64{}
		for _, s := range spans {
			if s.Name == "deployment.marker" {
				want[s.Resource["service.version"]]++
			}
		}
		var sd sigScalarData
		decodeStrict(t, res[0], &sd)
		gotMarkers := map[string]float64{}
		for _, row := range sd.Data {
			gotMarkers[row[0].(string)] = row[1].(float64)
		}
		require.Equal(t, want, gotMarkers)
	case strings.HasPrefix(c.What, "error logs"):
		var errs []truthLog
		for _, l := range tr.logs {
			if tr.inWindow(l.Timestamp) && l.Resource["service.name"] == tr.service && l.SeverityText == "ERROR" {
				errs = append(errs, l)
			}
		}
		require.NotEmpty(t, errs, "the incident has error logs")
		sort.SliceStable(errs, func(i, j int) bool { return errs[i].Timestamp.After(errs[j].Timestamp) })
		var rd sigRawData
		decodeStrict(t, res[0], &rd)
		require.Len(t, rd.Rows, min(20, len(errs)))
		bodies := map[string]bool{}
		for _, l := range errs[:min(20, len(errs))] {
			bodies[l.Body] = true
		}
		for _, row := range rd.Rows {
			require.Equal(t, "ERROR", row.Data["severity_text"])
			require.True(t, bodies[row.Data["body"].(string)], "a body of the latest error logs: %q", row.Data["body"])
		}
	case strings.HasPrefix(c.What, "per-minute span count"):
		want := map[string]map[int64]float64{}
		for _, s := range spans {
			k := strconv.FormatBool(s.HasError)
			if want[k] == nil {
				want[k] = map[int64]float64{}
			}
			want[k][s.Timestamp.UnixMilli()/60000*60000]++
		}
		var td sigTimeSeriesData
		decodeStrict(t, res[0], &td)
		require.Len(t, td.Aggregations, 1)
		gotSeries := map[string]map[int64]float64{}
		for _, s := range td.Aggregations[0].Series {
			k := fmt.Sprint(s.Labels[0].Value)
			gotSeries[k] = map[int64]float64{}
			for _, v := range s.Values {
				gotSeries[k][v.Timestamp] = v.Value.(float64)
			}
		}
		require.Equal(t, want, gotSeries)
	case strings.HasPrefix(c.What, "all spans of one trace"):
		trace := errorTrace(t, tr)
		n := 0
		for _, s := range tr.spans {
			if s.TraceID == trace && tr.inWindow(s.Timestamp) {
				n++
			}
		}
		var rd sigRawData
		decodeStrict(t, res[0], &rd)
		require.Len(t, rd.Rows, n)
		for _, row := range rd.Rows {
			require.Equal(t, trace, row.Data["trace_id"])
		}
	case strings.HasPrefix(c.What, "log count by severity"):
		want := map[string]float64{}
		for _, l := range tr.logs {
			if tr.inWindow(l.Timestamp) && l.Resource["service.name"] == tr.service {
				want[l.SeverityText]++
			}
		}
		var sd sigScalarData
		decodeStrict(t, res[0], &sd)
		gotCounts := map[string]float64{}
		for _, row := range sd.Data {
			gotCounts[row[0].(string)] = row[1].(float64)
		}
		require.Equal(t, want, gotCounts)
	default:
		t.Fatalf("no check for captured request %q: add one", c.What)
	}
}

// serviceItemMirror is SigNoz's model.ServiceItem (not in its OpenAPI).
type serviceItemMirror struct {
	ServiceName  string  `json:"serviceName"`
	Percentile99 float64 `json:"p99"`
	AvgDuration  float64 `json:"avgDuration"`
	NumCalls     uint64  `json:"numCalls"`
	CallRate     float64 `json:"callRate"`
	NumErrors    uint64  `json:"numErrors"`
	ErrorRate    float64 `json:"errorRate"`
	Num4XX       uint64  `json:"num4XX"`
	FourXXRate   float64 `json:"fourXXRate"`
	DataWarning  struct {
		TopLevelOps []string `json:"topLevelOps"`
	} `json:"dataWarning"`
}

// topOperationMirror is SigNoz's model.TopOperationsItem (not in its OpenAPI).
type topOperationMirror struct {
	Percentile50 float64 `json:"p50"`
	Percentile95 float64 `json:"p95"`
	Percentile99 float64 `json:"p99"`
	NumCalls     uint64  `json:"numCalls"`
	ErrorCount   uint64  `json:"errorCount"`
	Name         string  `json:"name"`
}

func checkServices(t *testing.T, tr *truth, items []serviceItemMirror) {
	calls, errs := map[string]uint64{}, map[string]uint64{}
	for _, s := range tr.spans {
		if tr.inWindow(s.Timestamp) && (s.Kind == 2 || s.Kind == 5) {
			calls[s.Resource["service.name"]]++
			if s.HasError {
				errs[s.Resource["service.name"]]++
			}
		}
	}
	require.Len(t, items, len(calls))
	for _, it := range items {
		require.Equal(t, calls[it.ServiceName], it.NumCalls, it.ServiceName)
		require.Equal(t, errs[it.ServiceName], it.NumErrors, it.ServiceName)
	}
}

func checkOtherAnswer(t *testing.T, api *openAPI, c capture, tr *truth, path string, got []byte) {
	t.Helper()
	template, _, _ := strings.Cut(c.Path, "?")
	template = strings.ReplaceAll(template, "<rule-id>", "{id}")
	switch template {
	case "/api/v1/services":
		var items []serviceItemMirror
		decodeStrict(t, got, &items)
		checkServices(t, tr, items)
		return
	case "/api/v1/service/top_operations":
		var items []topOperationMirror
		decodeStrict(t, got, &items)
		type acc struct{ calls, errs uint64 }
		want := map[string]acc{}
		for _, s := range tr.serviceSpans() {
			if s.Name != "deployment.marker" && (s.Kind == 2 || s.Kind == 5 || s.ParentSpanID == "") {
				a := want[s.Name]
				a.calls++
				if s.HasError {
					a.errs++
				}
				want[s.Name] = a
			}
		}
		require.Len(t, items, len(want))
		for _, it := range items {
			require.Equal(t, want[it.Name], acc{it.NumCalls, it.ErrorCount}, it.Name)
		}
		return
	case "/api/v1/explorer/views":
		var env struct {
			Status string `json:"status"`
			Data   []any  `json:"data"`
		}
		decodeStrict(t, got, &env)
		require.Equal(t, "success", env.Status)
		require.Empty(t, env.Data)
		return
	}
	require.True(t, api.validateResponse(t, c.Method, template, got), "SigNoz's OpenAPI describes %s %s", c.Method, template)
	switch template {
	case "/api/v1/alerts":
		var alerts []gettableAlert
		successData(t, got, &alerts)
		firing := 0
		for _, a := range tr.alert.Alerts {
			if a.Status == "firing" {
				firing++
			}
		}
		require.Len(t, alerts, firing)
		for _, a := range alerts {
			require.Equal(t, tr.service, a.Labels["service.name"])
		}
	case "/api/v2/rules":
		var rules []map[string]any
		successData(t, got, &rules)
		require.Len(t, rules, 1)
		require.Equal(t, ruleID(t, tr), rules[0]["id"])
	case "/api/v2/rules/{id}":
		var r map[string]any
		successData(t, got, &r)
		require.Equal(t, ruleID(t, tr), r["id"])
		require.Equal(t, tr.alert.Alerts[0].Labels["alertname"], r["alert"])
	case "/api/v2/rules/{id}/history/timeline":
		var tl ruleTimeline
		successData(t, got, &tl)
		var want []int64
		for _, a := range tr.alert.Alerts {
			if tr.inWindow(a.StartsAt) {
				want = append(want, a.StartsAt.UnixMilli())
			}
		}
		require.NotEmpty(t, want, "the alert fired inside the window")
		require.Equal(t, len(want), tl.Total)
		for i, it := range tl.Items {
			require.Equal(t, want[i], it.UnixMilli)
			require.Equal(t, "firing", it.State)
		}
	case "/api/v2/dashboards":
		var d map[string]any
		successData(t, got, &d)
		require.Equal(t, float64(0), d["total"])
	case "/api/v1/fields/keys":
		var keys gettableFieldKeys
		successData(t, got, &keys)
		for _, s := range tr.spans {
			for k := range s.Resource {
				require.Contains(t, keys.Keys, k)
			}
			for k := range s.Attributes {
				require.Contains(t, keys.Keys, k)
			}
		}
	case "/api/v1/fields/values":
		var vals gettableFieldValues
		successData(t, got, &vals)
		want := map[string]bool{}
		for _, s := range tr.spans {
			want[s.Resource["service.name"]] = true
		}
		require.Equal(t, slices.Sorted(maps.Keys(want)), vals.Values.StringValues)
	case "/api/v1/stats":
		var st map[string]any
		successData(t, got, &st)
		require.Equal(t, float64(len(tr.spans)), st["traces.spans"])
		require.Equal(t, float64(len(tr.logs)), st["logs.records"])
	case "/api/v2/metrics":
		var m struct {
			Metrics []listedMetric `json:"metrics"`
		}
		successData(t, got, &m)
		var names []string
		for _, x := range m.Metrics {
			names = append(names, x.MetricName)
		}
		require.Contains(t, names, "signoz_calls_total")
		require.Contains(t, names, "signoz_latency")
	case "/api/v1/channels":
		var ch []any
		successData(t, got, &ch)
		require.Empty(t, ch)
	default:
		t.Fatalf("no check for captured request %s %s: add one", c.Method, c.Path)
	}
}

type metricRequest struct {
	what  string
	body  []byte
	check func(t *testing.T, got []byte)
}

// metricRequests are what signoz_query_metrics and a formula through
// signoz_execute_builder_query send (the captures have none): calls per
// service, the error ratio as a formula, and p95 latency.
func metricRequests(tr *truth) []metricRequest {
	win := fmt.Sprintf(`"schemaVersion":"v1","start":%d,"end":%d`, tr.start.UnixMilli(), tr.end.UnixMilli())
	calls := func(name, filter string) string {
		return fmt.Sprintf(`{"type":"builder_query","spec":{"name":%q,"signal":"metrics","disabled":false,"filter":{"expression":%q},"groupBy":[{"name":"service.name","fieldContext":"resource","fieldDataType":"string"}],"aggregations":[{"metricName":"signoz_calls_total","temporality":"cumulative","timeAggregation":"increase","spaceAggregation":"sum"}],"limit":10000,"order":[{"key":{"name":"service.name"},"direction":"asc"}]}}`, name, filter)
	}
	perService := func(errorsOnly bool) map[string]float64 {
		out := map[string]float64{}
		for _, s := range tr.spans {
			if tr.inWindow(s.Timestamp) && (!errorsOnly || s.StatusCode == 2) {
				out[s.Resource["service.name"]]++
			}
		}
		return out
	}
	scalarByService := func(t *testing.T, got []byte, idx int) map[string]float64 {
		var sd sigScalarData
		decodeStrict(t, results(t, got)[idx], &sd)
		out := map[string]float64{}
		for _, row := range sd.Data {
			out[row[0].(string)] = row[1].(float64)
		}
		return out
	}
	return []metricRequest{
		{
			what: "signoz_calls_total by service",
			body: []byte(`{` + win + `,"requestType":"scalar","compositeQuery":{"queries":[` + calls("A", "") + `]},"formatOptions":{"formatTableResultForUI":false,"fillGaps":false},"variables":{}}`),
			check: func(t *testing.T, got []byte) {
				require.Equal(t, perService(false), scalarByService(t, got, 0))
			},
		},
		{
			what: "error ratio formula",
			body: []byte(`{` + win + `,"requestType":"scalar","compositeQuery":{"queries":[` +
				calls("A", "status.code = 'STATUS_CODE_ERROR'") + `,` + calls("B", "") +
				`,{"type":"builder_formula","spec":{"name":"F1","expression":"A * 100 / B","limit":100,"order":[{"key":{"name":"F1"},"direction":"desc"}]}}]},"formatOptions":{"formatTableResultForUI":false,"fillGaps":false},"variables":{}}`),
			check: func(t *testing.T, got []byte) {
				errs, all := perService(true), perService(false)
				ratio := scalarByService(t, got, 2)
				require.NotEmpty(t, ratio)
				for svc, n := range all {
					require.InDelta(t, round3(errs[svc]*100/n), ratio[svc], 0.001, svc)
				}
			},
		},
		{
			what: "signoz_latency p95 of the service per minute",
			body: []byte(fmt.Sprintf(`{%s,"requestType":"time_series","compositeQuery":{"queries":[{"type":"builder_query","spec":{"name":"A","signal":"metrics","stepInterval":60,"filter":{"expression":"service.name = '%s'"},"aggregations":[{"metricName":"signoz_latency","timeAggregation":"rate","spaceAggregation":"p95"}]}}]},"formatOptions":{"fillGaps":false},"variables":{}}`, win, tr.service)),
			check: func(t *testing.T, got []byte) {
				byMinute := map[int64][]float64{}
				for _, s := range tr.serviceSpans() {
					m := s.Timestamp.UnixMilli() / 60000 * 60000
					byMinute[m] = append(byMinute[m], float64(s.DurationNano)/1e6)
				}
				var td sigTimeSeriesData
				decodeStrict(t, results(t, got)[0], &td)
				require.Len(t, td.Aggregations[0].Series, 1)
				require.Len(t, td.Aggregations[0].Series[0].Values, len(byMinute))
				bounds := append([]float64{0}, latencyBucketsMs...)
				for _, v := range td.Aggregations[0].Series[0].Values {
					// The histogram's rank q·n falls in the bucket of the
					// ⌈q·n⌉-th smallest duration.
					d := slices.Sorted(slices.Values(byMinute[v.Timestamp]))
					nth := d[int(math.Ceil(0.95*float64(len(d))))-1]
					i := sort.SearchFloat64s(bounds, nth)
					lo, hi := bounds[max(i-1, 0)], bounds[min(i, len(bounds)-1)]
					require.GreaterOrEqual(t, v.Value.(float64), lo-0.001, "p95 at %d lies in the exact p95's bucket", v.Timestamp)
					require.LessOrEqual(t, v.Value.(float64), hi+0.001, "p95 at %d lies in the exact p95's bucket", v.Timestamp)
				}
			},
		},
	}
}
