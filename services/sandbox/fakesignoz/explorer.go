package fakesignoz

import (
	"net/http"
	"slices"
	"sort"
	"strconv"
)

// The metrics explorer's read routes and the get-by-id routes of the
// catalogue the official SigNoz MCP server's read tools call
// (signoz_list_metrics' treemap, signoz_get_metric_attributes,
// signoz_get_dashboard, signoz_get_view, signoz_get_notification_channel),
// in SigNoz's shapes (openapi.yml: MetricsexplorertypesTreemapResponse,
// MetricsexplorertypesMetricAttributesResponse, RenderErrorResponse).

// treemapRequest is MetricsexplorertypesTreemapRequest.
type treemapRequest struct {
	Start  int64  `json:"start"`
	End    int64  `json:"end"`
	Limit  int    `json:"limit"`
	Mode   string `json:"mode"`
	Filter *struct {
		Expression string `json:"expression"`
	} `json:"filter,omitempty"`
}

// treemapEntry is MetricsexplorertypesTreemapEntry.
type treemapEntry struct {
	MetricName string  `json:"metricName"`
	Percentage float64 `json:"percentage"`
	TotalValue uint64  `json:"totalValue"`
}

// serveTreemap answers POST /api/v2/metrics/treemap: each span metric's
// share of the samples (one per span and metric) or of the time series
// (distinct label sets) in the window, largest first.
func (s *Server) serveTreemap(w http.ResponseWriter, c call) int {
	var req treemapRequest
	if err := strictDecode(c.body, &req, "treemap request"); err != nil {
		return writeError(w, err)
	}
	switch {
	case req.Start <= 0 || req.End <= req.Start:
		return writeError(w, invalidInput("start and end must be epoch milliseconds with start before end"))
	case req.Mode != "samples" && req.Mode != "timeseries":
		return writeError(w, invalidInput("invalid mode %q: want samples or timeseries", req.Mode))
	case req.Limit <= 0:
		return writeError(w, invalidInput("limit must be positive"))
	case req.Filter != nil && req.Filter.Expression != "":
		return writeError(w, unsupported("a filter on the treemap is not implemented"))
	}
	start, end, _ := s.window(uint64(req.Start), uint64(req.End))
	var spans []record
	for i := range s.store.spans {
		t := uint64(s.store.spans[i].ts.UnixMilli())
		if t >= start && t <= end {
			spans = append(spans, s.store.spans[i])
		}
	}
	recs := metricRecords(spans)
	series := map[string]bool{}
	for i := range recs {
		series[seriesKey(&recs[i])] = true
	}
	per := uint64(len(recs))
	if req.Mode == "timeseries" {
		per = uint64(len(series))
	}
	entries := []treemapEntry{}
	if per > 0 {
		for _, m := range spanMetrics {
			entries = append(entries, treemapEntry{MetricName: m.name, TotalValue: per})
		}
	}
	for i := range entries {
		entries[i].Percentage = 100 / float64(len(entries))
	}
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].MetricName < entries[j].MetricName })
	if len(entries) > req.Limit {
		entries = entries[:req.Limit]
	}
	out := map[string]any{"samples": nil, "timeseries": nil}
	out[req.Mode] = entries
	return writeSuccess(w, out)
}

// metricAttribute is MetricsexplorertypesMetricAttribute.
type metricAttribute struct {
	Key        string   `json:"key"`
	Values     []string `json:"values"`
	ValueCount int      `json:"valueCount"`
}

// serveMetricAttributes answers GET /api/v2/metrics/attributes: the span
// metric's dimensions and the values they take in the window (the whole
// incident without start and end).
func (s *Server) serveMetricAttributes(w http.ResponseWriter, c call) int {
	name := c.query.Get("metricName")
	if name == "" {
		return writeError(w, invalidInput("metricName is required"))
	}
	if _, ok := findSpanMetric(name); !ok {
		return writeError(w, notFound("metric %s not found", name))
	}
	var start, end uint64
	for k, dst := range map[string]*uint64{"start": &start, "end": &end} {
		if v := c.query.Get(k); v != "" {
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return writeError(w, invalidInput("invalid %s %q: expected epoch milliseconds", k, v))
			}
			*dst = n
		}
	}
	if start != 0 && end != 0 {
		start, end, _ = s.window(start, end)
	}
	values := map[string]map[string]bool{}
	for i := range s.store.spans {
		t := uint64(s.store.spans[i].ts.UnixMilli())
		if (start != 0 && t < start) || (end != 0 && t > end) {
			continue
		}
		for k, v := range metricPointOf(&s.store.spans[i]).labels {
			if values[k] == nil {
				values[k] = map[string]bool{}
			}
			values[k][stringOf(v)] = true
		}
	}
	attrs := []metricAttribute{}
	for _, k := range spanMetricLabels {
		if len(values[k]) == 0 {
			continue
		}
		vs := make([]string, 0, len(values[k]))
		for v := range values[k] {
			vs = append(vs, v)
		}
		slices.Sort(vs)
		attrs = append(attrs, metricAttribute{Key: k, Values: vs, ValueCount: len(vs)})
	}
	return writeSuccess(w, map[string]any{"attributes": attrs, "totalKeys": len(attrs)})
}

// notFoundByID answers a get-by-id route of a catalogue the fake keeps
// empty (dashboards, saved views, notification channels): SigNoz's 404.
func notFoundByID(what string) handler {
	return func(w http.ResponseWriter, c call) int {
		return writeError(w, notFound("%s with id %s not found", what, c.params["id"]))
	}
}
