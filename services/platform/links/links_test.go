package links

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const base = "http://localhost:8080"

func TestBuildersResolve(t *testing.T) {
	t.Parallel()
	from := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	to := from.Add(3 * time.Hour)
	tests := []struct {
		name, link, route string
	}{
		{"traces explorer", Traces(base, Explorer{Filter: "service.name = 'shop-api' AND has_error = true", From: from, To: to}), RouteTracesExplorer},
		{"logs explorer", Logs(base, Explorer{Filter: "service.name = 'shop-api' AND body CONTAINS 'a&b=c'", From: from, To: to}), RouteLogsExplorer},
		{"aggregate", Traces(base, Explorer{Filter: "service.name = 'x'", Aggregation: "p95(duration_nano)", GroupBy: []string{"name"}, From: from, To: to}), RouteTracesExplorer},
		{"trace", Trace(base, "4bf92f3577b34da6a3ce929d0e0e4736"), RouteTrace},
		{"service", Service(base, "shop-api"), RouteService},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			route, ok := Resolves(base, tt.link)
			require.True(t, ok, tt.link)
			require.Equal(t, tt.route, route)
		})
	}
}

func TestExplorerEncoding(t *testing.T) {
	t.Parallel()
	from := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	link := Traces(base+"/", Explorer{Filter: "service.name = 'shop api'", From: from, To: from.Add(time.Hour)})
	require.True(t, strings.HasPrefix(link, base+"/traces-explorer?compositeQuery=%257B%2522builder%2522"), link)
	u, err := url.Parse(link)
	require.NoError(t, err)
	require.Equal(t, "1796025600000", u.Query().Get("startTime"))
	require.Equal(t, "1796029200000", u.Query().Get("endTime"))
	cq, err := DecodeCompositeQuery(u.Query().Get("compositeQuery"))
	require.NoError(t, err)
	qd := cq["builder"].(map[string]any)["queryData"].([]any)[0].(map[string]any)
	require.Equal(t, "service.name = 'shop api'", qd["filter"].(map[string]any)["expression"])
	require.Equal(t, "traces", qd["dataSource"])
	require.Len(t, cq["id"], 36)
	require.Equal(t, link, Traces(base, Explorer{Filter: "service.name = 'shop api'", From: from, To: from.Add(time.Hour)}), "links are deterministic")
}

func TestResolvesRejects(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, base, link string }{
		{"old port", base, "http://localhost:3301/traces-explorer"},
		{"invented route", base, base + "/deployments"},
		{"trace without id", base, base + "/trace/"},
		{"nested trace", base, base + "/trace/a/b"},
		{"alerts without rule", base, base + "/alerts/overview"},
		{"bad composite query", base, base + "/traces-explorer?compositeQuery=%257Bnot-json"},
		{"other host", base, "http://evil.example/trace/abc"},
		{"userinfo", base, "http://user@localhost:8080/trace/abc"},
		{"outside base path", "https://ops.example.com/signoz", "https://ops.example.com/trace/abc"},
		{"not a url", base, "::"},
		{"bad base", "", base + "/trace/abc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, ok := Resolves(tt.base, tt.link)
			require.False(t, ok)
		})
	}
}

func TestResolvesOtherRoutes(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, base, link, route string }{
		{"alert", base, base + "/alerts/overview?ruleId=42", RouteAlertOverview},
		{"dashboard", base, base + "/dashboard/abc", RouteDashboard},
		{"metrics", base, base + "/metrics-explorer/explorer", RouteMetricsExplorer},
		{"base with path", "https://ops.example.com/signoz/", "https://ops.example.com/signoz/trace/abc", RouteTrace},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, ok := Resolves(tt.base, tt.link)
			require.True(t, ok)
			require.Equal(t, tt.route, r)
		})
	}
}
