package tools_test

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/incident"
	"agentk/services/sandbox/internal/tools"

	"github.com/stretchr/testify/require"
)

// TestOverviewTotalsCountRequests: a service_overview's totals (requests,
// errors, error rate) count the service's requests, its server and consumer
// spans and its root spans, never its calls out. checkout makes three
// client calls per request to payment (1836 client spans to 612 requests):
// counted as requests, they showed 2448 requests and an error rate of
// 0.056 where its requests failed at 0.123.
func TestOverviewTotalsCountRequests(t *testing.T) {
	t.Parallel()
	inc, err := incident.Load(filepath.Join("..", "..", "..", "..", "e2e", "incidents-culprit", "cx-checkout-payment-220-rejects-charges"))
	require.NoError(t, err)
	var a struct {
		Alerts []struct {
			StartsAt time.Time `json:"startsAt"`
		} `json:"alerts"`
	}
	require.NoError(t, json.Unmarshal(inc.AlertJSON, &a))
	h := newHarness(t, inc, a.Alerts[0].StartsAt)
	c, err := tools.Validate(contracts.ToolServiceOverview, json.RawMessage(`{"service":"checkout"}`), h.startsAt, h.now, h.lim)
	require.NoError(t, err)
	var requests, failed, client int64
	for _, s := range inc.Spans {
		if s.Service() != "checkout" || s.Name == "deployment.marker" {
			continue
		}
		require.True(t, !s.Timestamp.Before(c.Window.From) && s.Timestamp.Before(c.Window.To), "every span in the window: the count is exact")
		switch {
		case s.Kind == 2 || s.Kind == 5 || s.ParentSpanID == "":
			requests++
			if s.HasError {
				failed++
			}
		case s.Kind == 3:
			client++
		}
	}
	require.Greater(t, client, 2*requests, "the incident's service makes several calls per request")

	r, err := h.run(t, contracts.ToolServiceOverview, `{"service":"checkout"}`)
	require.NoError(t, err)
	f := r.out.Facts
	require.Equal(t, requests, *f.RequestCount)
	require.Equal(t, failed, *f.ErrorCount)
	require.InDelta(t, float64(failed)/float64(requests), *f.ErrorRate, 0.001)
	require.Contains(t, r.out.Compact, "requests: 612  errors: 75")
}
