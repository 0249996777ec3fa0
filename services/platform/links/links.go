// Package links builds SigNoz deep links exactly as SigNoz's own frontend
// builds them, and checks links against SigNoz's real route table: a single-page
// app answers 200 for every path, so a status check cannot tell a real route
// from a typo, but this can.
package links

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Routes of the SigNoz UI that evidence and reports may link to.
const (
	RouteTracesExplorer  = "/traces-explorer"
	RouteTrace           = "/trace/:id"
	RouteLogsExplorer    = "/logs/logs-explorer"
	RouteService         = "/services/:name"
	RouteAlertOverview   = "/alerts/overview"
	RouteDashboard       = "/dashboard/:id"
	RouteMetricsExplorer = "/metrics-explorer/explorer"
)

// DefaultBaseURL is where SigNoz serves its UI (not the old 3301).
const DefaultBaseURL = "http://localhost:8080"

// Resolves reports whether link points into the SigNoz UI at baseURL on a
// route that exists, and which route. Explorer links must carry a
// compositeQuery that decodes to a JSON object; /alerts/overview needs a
// ruleId; path parameters must be non-empty single segments.
func Resolves(baseURL, link string) (route string, ok bool) {
	base, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil || base.Host == "" {
		return "", false
	}
	u, err := url.Parse(link)
	if err != nil || u.Scheme != base.Scheme || !strings.EqualFold(u.Host, base.Host) || u.User != nil {
		return "", false
	}
	path, found := strings.CutPrefix(u.EscapedPath(), base.EscapedPath())
	if !found || !strings.HasPrefix(path, "/") {
		return "", false
	}
	path = strings.TrimSuffix(path, "/")
	q := u.Query()
	seg := strings.Split(strings.TrimPrefix(path, "/"), "/")
	param := func(prefix string) bool {
		return len(seg) == 2 && seg[0] == prefix && seg[1] != ""
	}
	switch {
	case path == RouteTracesExplorer, path == RouteLogsExplorer:
		if cq := q.Get("compositeQuery"); cq != "" {
			if _, err := DecodeCompositeQuery(cq); err != nil {
				return "", false
			}
		}
		return path, true
	case path == RouteMetricsExplorer:
		return path, true
	case path == RouteAlertOverview:
		return path, q.Get("ruleId") != ""
	case param("trace"):
		return RouteTrace, true
	case param("services"):
		return RouteService, true
	case param("dashboard"):
		return RouteDashboard, true
	}
	return "", false
}

// DecodeCompositeQuery undoes the frontend's encoding of the compositeQuery
// parameter value (as url.Values.Get returns it: one layer already decoded).
func DecodeCompositeQuery(v string) (map[string]any, error) {
	s, err := url.QueryUnescape(v)
	if err != nil {
		return nil, fmt.Errorf("links: compositeQuery: %w", err)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return nil, fmt.Errorf("links: compositeQuery: %w", err)
	}
	return m, nil
}

// Explorer describes an explorer link.
type Explorer struct {
	// DataSource is "traces" or "logs".
	DataSource string
	// Filter is a v5 filter expression.
	Filter string
	// Aggregation is a v5 aggregation expression; empty lists rows.
	Aggregation string
	GroupBy     []string
	From, To    time.Time
}

// Traces returns a /traces-explorer link.
func Traces(baseURL string, e Explorer) string {
	e.DataSource = "traces"
	return explorer(baseURL, RouteTracesExplorer, e)
}

// Logs returns a /logs/logs-explorer link.
func Logs(baseURL string, e Explorer) string {
	e.DataSource = "logs"
	return explorer(baseURL, RouteLogsExplorer, e)
}

// Trace returns the /trace/<id> link.
func Trace(baseURL, traceID string) string {
	return strings.TrimRight(baseURL, "/") + "/trace/" + url.PathEscape(traceID)
}

// Service returns the /services/<name> link.
func Service(baseURL, name string) string {
	return strings.TrimRight(baseURL, "/") + "/services/" + url.PathEscape(name)
}

func explorer(baseURL, route string, e Explorer) string {
	cq := compositeQuery(e)
	b, _ := json.Marshal(cq) // plain maps and strings: cannot fail
	// The frontend writes encodeURIComponent(JSON.stringify(query)) into the
	// query string, which is then URL-encoded again as a parameter value.
	v := encodeURIComponent(encodeURIComponent(string(b)))
	return fmt.Sprintf("%s%s?compositeQuery=%s&startTime=%s&endTime=%s", strings.TrimRight(baseURL, "/"), route, v,
		strconv.FormatInt(e.From.UnixMilli(), 10), strconv.FormatInt(e.To.UnixMilli(), 10))
}

func compositeQuery(e Explorer) map[string]any {
	op, aggs := "noop", []any{}
	order := []any{map[string]any{"columnName": "timestamp", "order": "desc"}}
	if e.Aggregation != "" {
		op = "count"
		aggs = []any{map[string]any{"expression": e.Aggregation}}
		order = []any{}
	}
	if e.DataSource == "logs" && e.Aggregation == "" {
		aggs = []any{map[string]any{"expression": "count()"}}
	}
	groupBy := []any{}
	for _, g := range e.GroupBy {
		groupBy = append(groupBy, map[string]any{"key": g, "dataType": "string", "type": "", "id": g})
	}
	qd := map[string]any{
		"dataSource": e.DataSource, "queryName": "A", "aggregateOperator": op,
		"aggregations": aggs, "filter": map[string]any{"expression": e.Filter},
		"filters": map[string]any{"items": []any{}, "op": "AND"},
		"groupBy": groupBy, "expression": "A", "disabled": false, "having": map[string]any{"expression": ""},
		"limit": nil, "orderBy": order, "stepInterval": nil, "legend": "", "selectColumns": []any{},
		"timeAggregation": "rate", "spaceAggregation": "sum", "functions": []any{}, "offset": 0, "pageSize": 0,
	}
	empty := []any{map[string]any{"name": "A", "query": "", "legend": "", "disabled": false}}
	return map[string]any{
		"queryType": "builder",
		"builder":   map[string]any{"queryData": []any{qd}, "queryFormulas": []any{}, "queryTraceOperator": []any{}},
		"promql":    empty, "clickhouse_sql": empty,
		"id": stableID(e),
	}
}

// stableID is a UUID-shaped id derived from the query, so the same evidence
// always yields the same link.
func stableID(e Explorer) string {
	s := sha256.Sum256(fmt.Appendf(nil, "%s|%s|%s|%v|%d|%d", e.DataSource, e.Filter, e.Aggregation, e.GroupBy, e.From.UnixMilli(), e.To.UnixMilli()))
	h := fmt.Sprintf("%x", s)
	return h[0:8] + "-" + h[8:12] + "-4" + h[12:15] + "-8" + h[15:18] + "-" + h[18:30]
}

// encodeURIComponent escapes like JavaScript's encodeURIComponent: everything
// but A-Z a-z 0-9 - _ . ! ~ * ' ( ).
func encodeURIComponent(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("-_.!~*'()", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}
