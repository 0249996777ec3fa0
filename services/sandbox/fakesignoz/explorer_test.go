package fakesignoz

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestExplorerRoutesAnswerInSigNozsShapes: the routes the official MCP
// server's read tools call beyond query_range answer with SigNoz's schemas
// (openapi.yml), and their numbers are the incident's.
func TestExplorerRoutesAnswerInSigNozsShapes(t *testing.T) {
	t.Parallel()
	api, err := loadOpenAPI()
	require.NoError(t, err)
	inc := fixtureIncident(t)
	ts := httptest.NewServer(New(inc, Options{APIKey: testKey}))
	t.Cleanup(ts.Close)
	spans := 0
	for _, s := range inc.Spans {
		if ms := s.Timestamp.UnixMilli(); ms >= winStart && ms <= winEnd {
			spans++
		}
	}
	require.NotZero(t, spans)

	status, body, _ := do(t, ts, http.MethodPost, "/api/v2/metrics/treemap", keyHeaders(),
		[]byte(fmt.Sprintf(`{"start":%d,"end":%d,"limit":10,"mode":"samples"}`, winStart, winEnd)))
	require.Equal(t, http.StatusOK, status, "%s", body)
	require.True(t, api.validateResponse(t, "POST", "/api/v2/metrics/treemap", body))
	var tm struct {
		Samples    []treemapEntry `json:"samples"`
		Timeseries []treemapEntry `json:"timeseries"`
	}
	successData(t, body, &tm)
	require.Len(t, tm.Samples, len(spanMetrics))
	require.Equal(t, uint64(spans), tm.Samples[0].TotalValue, "one sample per span and metric")

	status, body = get(t, ts, fmt.Sprintf("/api/v2/metrics/attributes?metricName=signoz_calls_total&start=%d&end=%d", winStart, winEnd))
	require.Equal(t, http.StatusOK, status, "%s", body)
	require.True(t, api.validateResponse(t, "GET", "/api/v2/metrics/attributes", body))
	var attrs struct {
		Attributes []metricAttribute `json:"attributes"`
		TotalKeys  int               `json:"totalKeys"`
	}
	successData(t, body, &attrs)
	require.Equal(t, len(attrs.Attributes), attrs.TotalKeys)
	services := map[string]bool{}
	for _, s := range inc.Spans {
		if ms := s.Timestamp.UnixMilli(); ms >= winStart && ms <= winEnd {
			services[s.Resource["service.name"]] = true
		}
	}
	require.Equal(t, "service.name", attrs.Attributes[0].Key)
	require.Len(t, attrs.Attributes[0].Values, len(services))

	status, _ = get(t, ts, "/api/v2/metrics/attributes?metricName=no_such_metric")
	require.Equal(t, http.StatusNotFound, status)
	for _, path := range []string{"/api/v2/dashboards/0192", "/api/v1/explorer/views/0192", "/api/v1/channels/7"} {
		status, body = get(t, ts, path)
		require.Equal(t, http.StatusNotFound, status, path)
		api.validateComponent(t, "RenderErrorResponse", body)
		require.Contains(t, string(body), "not found", path)
	}
}

// TestServicesAreMeasuredFromTheReplayClock: /api/v1/services, asked for
// "the last 6 hours" by the wall clock (the official server's default),
// answers for the replay clock's last 6 hours, as query_range does.
func TestServicesAreMeasuredFromTheReplayClock(t *testing.T) {
	t.Parallel()
	wall := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	inc := fixtureIncident(t)
	list := func(s *Server, start, end time.Time) []serviceItem {
		ts := httptest.NewServer(s)
		t.Cleanup(ts.Close)
		status, body, _ := do(t, ts, http.MethodPost, "/api/v1/services", keyHeaders(),
			[]byte(fmt.Sprintf(`{"start":"%d","end":"%d"}`, start.UnixNano(), end.UnixNano())))
		require.Equal(t, http.StatusOK, status, "%s", body)
		var out []serviceItem
		decodeStrict(t, body, &out)
		return out
	}
	want := list(New(inc, Options{APIKey: testKey}), fixtureNow.Add(-6*time.Hour), fixtureNow)
	require.NotEmpty(t, want)
	replay := New(inc, Options{APIKey: testKey, Now: func() time.Time { return wall }, ReplayNow: func() time.Time { return fixtureNow }})
	require.Equal(t, want, list(replay, wall.Add(-6*time.Hour), wall))
	require.Empty(t, list(New(inc, Options{APIKey: testKey, Now: func() time.Time { return wall }}), wall.Add(-6*time.Hour), wall))
}
