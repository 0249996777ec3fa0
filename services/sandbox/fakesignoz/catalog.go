package fakesignoz

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// topOperationsRequest is the body of SigNoz's POST
// /api/v1/service/top_operations: start and end as epoch-nanosecond strings.
type topOperationsRequest struct {
	Start   string `json:"start"`
	End     string `json:"end"`
	Service string `json:"service"`
	Tags    []any  `json:"tags"`
	Limit   int    `json:"limit,omitempty"`
}

// topOperationsItem is SigNoz's model.TopOperationsItem; durations in ns.
type topOperationsItem struct {
	Percentile50 float64 `json:"p50"`
	Percentile95 float64 `json:"p95"`
	Percentile99 float64 `json:"p99"`
	NumCalls     uint64  `json:"numCalls"`
	ErrorCount   uint64  `json:"errorCount"`
	Name         string  `json:"name"`
}

// serveTopOperations answers like SigNoz's GetTopOperations: a bare JSON
// array over the service's entry spans (server or consumer kind, or roots)
// in the window, one item per span name, ordered by p99 descending.
func (s *Server) serveTopOperations(w http.ResponseWriter, c call) int {
	var req topOperationsRequest
	if err := strictDecode(c.body, &req, "top operations request"); err != nil {
		return writeError(w, err)
	}
	if len(req.Tags) > 0 {
		return writeError(w, unsupported("tags on /api/v1/service/top_operations are not implemented"))
	}
	if req.Service == "" {
		return writeError(w, invalidInput("service is required"))
	}
	start, end, err := parseRange(req.Start, req.End)
	if err != nil {
		return writeError(w, err)
	}
	start, end, _ = s.windowNs(start, end)
	return writeJSON(w, http.StatusOK, topOperations(s.store, req.Service, start, end, req.Limit))
}

func isEntrySpan(r *record) bool {
	kind, _ := r.cols["kind"].(float64)
	parent, _ := r.cols["parent_span_id"].(string)
	return kind == 2 || kind == 5 || parent == ""
}

func topOperations(st *store, service string, start, end time.Time, limit int) []topOperationsItem {
	type acc struct {
		durations []float64
		errors    uint64
	}
	by := map[string]*acc{}
	var names []string
	for i := range st.spans {
		r := &st.spans[i]
		if r.ts.Before(start) || r.ts.After(end) || r.resource["service.name"] != service || !isEntrySpan(r) {
			continue
		}
		name, _ := r.cols["name"].(string)
		if name == "deployment.marker" {
			continue // a marker is not an operation
		}
		a := by[name]
		if a == nil {
			a = &acc{}
			by[name] = a
			names = append(names, name)
		}
		d, _ := r.cols["duration_nano"].(float64)
		a.durations = append(a.durations, d)
		if e, _ := r.cols["has_error"].(bool); e {
			a.errors++
		}
	}
	out := []topOperationsItem{}
	for _, n := range names {
		a := by[n]
		out = append(out, topOperationsItem{
			Percentile50: quantile(a.durations, 0.50), Percentile95: quantile(a.durations, 0.95),
			Percentile99: quantile(a.durations, 0.99), NumCalls: uint64(len(a.durations)), ErrorCount: a.errors, Name: n,
		})
	}
	slices.SortStableFunc(out, func(a, b topOperationsItem) int {
		if c := cmpFloat(b.Percentile99, a.Percentile99); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}

type listedMetric struct {
	MetricName  string `json:"metricName"`
	Description string `json:"description"`
	Type        string `json:"type"`
	Unit        string `json:"unit"`
	Temporality string `json:"temporality"`
	IsMonotonic bool   `json:"isMonotonic"`
}

// serveMetricsList answers GET /api/v2/metrics (MetricsexplorertypesListMetricsResponse)
// with the span metrics, when the window holds spans.
func (s *Server) serveMetricsList(w http.ResponseWriter, c call) int {
	q := c.query
	if src := q.Get("source"); src != "" {
		return writeError(w, unsupported("source %q is not implemented", src))
	}
	start, end, limit, err := metricsListQuery(q)
	if err != nil {
		return writeError(w, err)
	}
	if start != 0 && end != 0 {
		start, end, _ = s.window(start, end)
	}
	hasSpans := s.store.hasSpansIn(start, end)
	out := []listedMetric{}
	search := strings.ToLower(q.Get("searchText"))
	for _, m := range spanMetrics {
		if !hasSpans || (search != "" && !strings.Contains(m.name, search)) {
			continue
		}
		out = append(out, listedMetric{m.name, m.description, m.typ, m.unit, m.temporality, m.monotonic})
	}
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return writeSuccess(w, map[string]any{"metrics": out})
}

// metricsListQuery reads the optional start, end (epoch ms) and limit.
func metricsListQuery(q url.Values) (start, end uint64, limit int, err *apiError) {
	for name, dst := range map[string]*uint64{"start": &start, "end": &end} {
		if v := q.Get(name); v != "" {
			n, perr := strconv.ParseUint(v, 10, 64)
			if perr != nil {
				return 0, 0, 0, invalidInput("invalid %s %q: expected epoch milliseconds", name, v)
			}
			*dst = n
		}
	}
	if v := q.Get("limit"); v != "" {
		n, perr := strconv.Atoi(v)
		if perr != nil || n < 0 {
			return 0, 0, 0, invalidInput("invalid limit %q", v)
		}
		limit = n
	}
	return start, end, limit, nil
}

// hasSpansIn reports whether a span lies in [start, end] (epoch ms; 0 is
// open).
func (st *store) hasSpansIn(start, end uint64) bool {
	for i := range st.spans {
		t := uint64(st.spans[i].ts.UnixMilli())
		if (start == 0 || t >= start) && (end == 0 || t <= end) {
			return true
		}
	}
	return false
}

// serveDashboards answers GET /api/v2/dashboards: the fake has none.
func serveDashboards(w http.ResponseWriter, _ call) int {
	return writeSuccess(w, map[string]any{"dashboards": []any{}, "total": 0, "tags": []any{}, "reservedKeywords": []string{}})
}

// serveViews answers GET /api/v1/explorer/views: no saved views.
func serveViews(w http.ResponseWriter, c call) int {
	switch p := c.query.Get("sourcePage"); p {
	case "", "traces", "logs", "metrics", "meter":
	default:
		return writeError(w, invalidInput("invalid sourcePage %q", p))
	}
	return writeSuccess(w, []any{})
}

// serveChannels answers GET /api/v1/channels: no notification channels (the
// incident's webhook receiver is not a channel the fake can describe).
func serveChannels(w http.ResponseWriter, _ call) int {
	return writeSuccess(w, []any{})
}

// serveStats answers GET /api/v1/stats, a free-form object in SigNoz's
// schema: here the counts of what the fake serves.
func (s *Server) serveStats(w http.ResponseWriter, _ call) int {
	services := map[string]bool{}
	for _, r := range s.store.spans {
		services[r.resource["service.name"]] = true
	}
	return writeSuccess(w, map[string]any{
		"traces.spans": len(s.store.spans), "logs.records": len(s.store.logs),
		"services": len(services), "alerts": len(s.webhook().Alerts), "rules": len(s.rules()),
		"dashboards": 0, "savedViews": 0, "channels": 0,
	})
}
