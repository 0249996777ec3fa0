package fakesignoz

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

type capturedRequest struct {
	What    string            `json:"what"`
	Method  string            `json:"method"`
	Path    string            `json:"path"`
	Headers map[string]string `json:"headers"`
	Body    json.RawMessage   `json:"body"`
}

func loadCaptured(t *testing.T) []capturedRequest {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "query-range-requests.jsonl"))
	require.NoError(t, err)
	defer func() { _ = f.Close() }() // read only
	var out []capturedRequest
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var c capturedRequest
		require.NoError(t, json.Unmarshal(sc.Bytes(), &c))
		out = append(out, c)
	}
	require.NoError(t, sc.Err())
	require.Len(t, out, 8)
	return out
}

func newTestServer(t testing.TB) (*Server, *httptest.Server) {
	t.Helper()
	s := New(fixtureIncident(t), Options{APIKey: testKey})
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return s, ts
}

func do(t testing.TB, ts *httptest.Server, method, path string, headers map[string]string, body []byte) (int, []byte, http.Header) {
	t.Helper()
	req, err := http.NewRequest(method, ts.URL+path, bytes.NewReader(body))
	require.NoError(t, err)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := ts.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, b, resp.Header
}

func keyHeaders() map[string]string {
	return map[string]string{"SIGNOZ-API-KEY": testKey, "Content-Type": "application/json"}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	var pretty bytes.Buffer
	require.NoError(t, json.Indent(&pretty, got, "", "  "))
	pretty.WriteByte('\n')
	path := filepath.Join("testdata", "golden", name+".json")
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, pretty.Bytes(), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -update to create %s", path)
	require.Equal(t, string(want), pretty.String())
}

// TestCapturedRequests answers every request the official SigNoz MCP server
// sends, checks each answer against SigNoz's response shapes and pins it in
// a golden file.
func TestCapturedRequests(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t)
	for i, c := range loadCaptured(t) {
		t.Run(c.What, func(t *testing.T) {
			headers := map[string]string{}
			for k, v := range c.Headers {
				if v == "<key>" {
					v = testKey
				}
				headers[k] = v
			}
			status, body, _ := do(t, ts, c.Method, c.Path, headers, c.Body)
			require.Equal(t, http.StatusOK, status, "%s", body)
			if c.Path == "/api/v1/services" {
				var items []sigServiceItem
				decodeStrict(t, body, &items)
				require.NotEmpty(t, items)
			} else {
				_, results := decodeQueryRangeResponse(t, body)
				require.Len(t, results, 1)
			}
			golden(t, fmt.Sprintf("captured-%d", i+1), body)
		})
	}
}

func TestAuth(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t)
	body := []byte(`{"schemaVersion":"v1","start":1763400000000,"end":1763401800000,"requestType":"scalar","compositeQuery":{"queries":[{"type":"builder_query","spec":{"name":"A","signal":"traces","aggregations":[{"expression":"count()"}]}}]}}`)
	tests := []struct {
		name    string
		headers map[string]string
		want    int
	}{
		{"signoz header", map[string]string{"SIGNOZ-API-KEY": testKey}, http.StatusOK},
		{"bearer token", map[string]string{"Authorization": "Bearer " + testKey}, http.StatusOK},
		{"no key", nil, http.StatusUnauthorized},
		{"wrong key", map[string]string{"SIGNOZ-API-KEY": "nope"}, http.StatusUnauthorized},
		{"key as basic auth", map[string]string{"Authorization": "Basic " + testKey}, http.StatusUnauthorized},
		{"key prefix", map[string]string{"SIGNOZ-API-KEY": testKey[:4]}, http.StatusUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			status, got, _ := do(t, ts, http.MethodPost, "/api/v5/query_range", tt.headers, body)
			require.Equal(t, tt.want, status, "%s", got)
			if tt.want == http.StatusUnauthorized {
				e := decodeErrorResponse(t, got)
				require.Equal(t, "unauthenticated", e.Error.Type)
				require.Equal(t, "unauthenticated", e.Error.Code)
			}
		})
	}
}

func TestEmptyAPIKeyRefusesEverything(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(New(fixtureIncident(t), Options{}))
	t.Cleanup(ts.Close)
	status, _, _ := do(t, ts, http.MethodPost, "/api/v5/query_range", map[string]string{"SIGNOZ-API-KEY": ""}, []byte(`{}`))
	require.Equal(t, http.StatusUnauthorized, status)
}

func TestUIPathsAnswer200(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t)
	for _, path := range []string{"/", "/traces-explorer", "/trace/4bf92f3577b34da6a3ce929d0e0e4736", "/services/ledger-svc",
		"/logs/logs-explorer", "/anything/at/all", "/alerts/overview?ruleId=1", "/this-route-does-not-exist-in-signoz"} {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			status, body, h := do(t, ts, http.MethodGet, path, nil, nil)
			require.Equal(t, http.StatusOK, status)
			require.Contains(t, h.Get("Content-Type"), "text/html")
			require.Contains(t, string(body), "<div id=\"root\">")
		})
	}
}

func TestVersionAndHealth(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t)
	status, body, _ := do(t, ts, http.MethodGet, "/api/v1/version", nil, nil)
	require.Equal(t, http.StatusOK, status)
	var v struct {
		Version        string `json:"version"`
		EE             string `json:"ee"`
		SetupCompleted bool   `json:"setupCompleted"`
	}
	decodeStrict(t, body, &v)
	require.Equal(t, DefaultVersion, v.Version)
	require.True(t, v.SetupCompleted)

	status, body, _ = do(t, ts, http.MethodGet, "/api/v1/health", nil, nil)
	require.Equal(t, http.StatusOK, status)
	require.JSONEq(t, `{"status":"ok"}`, string(body))
}

func TestRoutingErrors(t *testing.T) {
	t.Parallel()
	_, ts := newTestServer(t)
	tests := []struct {
		name, method, path string
		want               int
	}{
		{"unknown api path", http.MethodGet, "/api/v3/query_range", http.StatusNotFound},
		{"GET on query_range", http.MethodGet, "/api/v5/query_range", http.StatusMethodNotAllowed},
		{"POST on a UI path", http.MethodPost, "/traces-explorer", http.StatusMethodNotAllowed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			status, body, _ := do(t, ts, tt.method, tt.path, keyHeaders(), nil)
			require.Equal(t, tt.want, status)
			decodeErrorResponse(t, body)
		})
	}
}

func TestRequestsAreRecordedWithoutTheKey(t *testing.T) {
	t.Parallel()
	s, ts := newTestServer(t)
	do(t, ts, http.MethodGet, "/api/v1/version", nil, nil)
	do(t, ts, http.MethodPost, "/api/v5/query_range", keyHeaders(), []byte(`{"bad":1}`))
	got := s.Requests()
	require.Len(t, got, 2)
	require.Equal(t, "/api/v1/version", got[0].Path)
	require.False(t, got[0].Authenticated)
	require.Equal(t, http.StatusBadRequest, got[1].Status)
	require.True(t, got[1].Authenticated)
	require.JSONEq(t, `{"bad":1}`, string(got[1].Body))
	for _, r := range got {
		require.NotContains(t, string(r.Body)+r.Query+r.Path, testKey)
	}
	require.False(t, strings.Contains(fmt.Sprint(got), testKey))
}
