package review_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"agentk/services/reviewer/internal/review"
)

func TestMatchRoute(t *testing.T) {
	t.Parallel()
	base, _ := url.Parse("http://localhost:8080")
	cases := []struct {
		name  string
		link  string
		route string
	}{
		{"traces explorer with query", "http://localhost:8080/traces-explorer?compositeQuery=abc&startTime=1", "/traces-explorer"},
		{"trace", "http://localhost:8080/trace/4bf92f3577b34da6a3ce929d0e0e4736", "/trace/:id"},
		{"logs explorer", "http://localhost:8080/logs/logs-explorer?q=x", "/logs/logs-explorer"},
		{"service", "http://localhost:8080/services/shop-api", "/services/:name"},
		{"alert overview", "http://localhost:8080/alerts/overview?ruleId=42", "/alerts/overview?ruleId="},
		{"dashboard", "http://localhost:8080/dashboard/0190a1b2", "/dashboard/:id"},
		{"metrics explorer", "http://localhost:8080/metrics-explorer/explorer", "/metrics-explorer/explorer"},
		{"host is case-insensitive", "http://LOCALHOST:8080/traces-explorer", "/traces-explorer"},

		{"deployments does not exist", "http://localhost:8080/deployments", ""},
		{"old port 3301", "http://localhost:3301/traces-explorer", ""},
		{"no port", "http://localhost/traces-explorer", ""},
		{"https instead of http", "https://localhost:8080/traces-explorer", ""},
		{"other host", "http://signoz.evil.example:8080/traces-explorer", ""},
		{"user info", "http://localhost:8080@evil.example/traces-explorer", ""},
		{"extra segment", "http://localhost:8080/trace/abc/extra", ""},
		{"trailing slash", "http://localhost:8080/traces-explorer/", ""},
		{"trace without id", "http://localhost:8080/trace/", ""},
		{"dot segment", "http://localhost:8080/services/../traces-explorer", ""},
		{"encoded slash", "http://localhost:8080/services/a%2Fb", ""},
		{"alerts overview without ruleId", "http://localhost:8080/alerts/overview", ""},
		{"alerts overview with empty ruleId", "http://localhost:8080/alerts/overview?ruleId=", ""},
		{"prefix of a route", "http://localhost:8080/traces", ""},
		{"relative", "/traces-explorer", ""},
		{"javascript", "javascript:alert(1)", ""},
		{"empty", "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := review.MatchRoute(base, tc.link)
			if tc.route == "" {
				require.ErrorIs(t, err, review.ErrLink)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.route, got)
		})
	}
}

func TestMatchRouteBasePath(t *testing.T) {
	t.Parallel()
	base, _ := url.Parse("https://signoz.example.com/signoz/")
	_, err := review.MatchRoute(base, "https://signoz.example.com/signoz/services/shop-api")
	require.NoError(t, err)
	_, err = review.MatchRoute(base, "https://signoz.example.com/services/shop-api")
	require.ErrorIs(t, err, review.ErrLink)
	_, err = review.MatchRoute(base, "https://signoz.example.com:443/signoz/traces-explorer")
	require.NoError(t, err, "the default port is the same origin")
}

// The prototype's lesson: a SPA answers 200 for every path, so a naive
// status check passes a fabricated link that the route table refuses.
func TestFabricatedLinkThatANaiveCheckPasses(t *testing.T) {
	t.Parallel()
	spa := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("<!doctype html><div id=root></div>"))
	}))
	t.Cleanup(spa.Close)
	base, _ := url.Parse(spa.URL)
	link := spa.URL + "/deployments"

	resp, err := spa.Client().Get(link)
	require.NoError(t, err)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "the naive check passes")

	_, err = review.MatchRoute(base, link)
	require.ErrorIs(t, err, review.ErrLink, "the route table does not")
}

func FuzzMatchRoute(f *testing.F) {
	base, _ := url.Parse("http://localhost:8080")
	for _, s := range []string{"http://localhost:8080/trace/abc", "http://localhost:8080/alerts/overview?ruleId=1", "http://localhost:8080/x/../trace/a", "%zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, link string) {
		route, err := review.MatchRoute(base, link)
		if err != nil {
			return
		}
		u, perr := url.Parse(link)
		require.NoError(t, perr)
		require.Equal(t, "localhost", u.Hostname())
		require.Equal(t, "8080", u.Port())
		require.Contains(t, review.Routes, route)
	})
}
