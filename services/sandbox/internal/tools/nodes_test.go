package tools_test

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"agentk/contracts"
	"agentk/contracts/incident"
)

// TestOverviewMeasuresNodeTraffic: a service of one version on three
// nodes, until a neighbour starved one of them; the overview counts each
// node's entry spans and errors since the onset. Red with
// sandbox.node_traffic.
func TestOverviewMeasuresNodeTraffic(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(49, 10))
	now := time.Date(2026, 12, 14, 16, 16, 0, 0, time.UTC)
	starved := now.Add(-10 * time.Minute)
	startsAt := starved.Add(5 * time.Minute)
	inc := &incident.Incident{Meta: incident.Meta{ID: "noisy", Service: "api", Now: now}}
	nodes := []string{"w1", "w4", "w7"}
	for at := now.Add(-90 * time.Minute); at.Before(now); at = at.Add(time.Second) {
		node := nodes[r.IntN(3)]
		s := incident.Span{Timestamp: at, TraceID: hexID(r, 16), SpanID: hexID(r, 8), Name: "GET /v1/devices/:deviceId", Kind: 2, DurationNano: 9e6,
			Resource: map[string]string{"service.name": "api", "service.version": "6.3.1", "k8s.node.name": node}, Attributes: map[string]json.RawMessage{}}
		if node == "w7" && !at.Before(starved) {
			s.DurationNano = 2e9
			if r.Float64() < 0.3 {
				s.HasError, s.StatusCode, s.StatusMessage = true, 2, "HTTP 503"
			}
		}
		inc.Spans = append(inc.Spans, s)
	}
	inc.AlertJSON = alertOf(t, "api", startsAt)
	h := newHarness(t, inc, startsAt)
	h.now = inc.Meta.Now
	out, err := h.run(t, contracts.ToolServiceOverview, `{"service":"api"}`)
	require.NoError(t, err)
	f := out.out.Facts
	require.NotNil(t, f.Onset, out.out.Compact)
	require.Len(t, f.NodeTraffic, 3, out.out.Compact)
	for _, n := range f.NodeTraffic {
		require.Equal(t, "6.3.1", n.Version)
		require.InDelta(t, 200, n.Requests, 50, out.out.Compact)
		if n.Node == "w7" {
			require.InDelta(t, 60, n.Errors, 20, out.out.Compact)
			continue
		}
		require.Zero(t, n.Errors, out.out.Compact)
	}
	require.Contains(t, out.out.Compact, "entry spans failed/served since the onset by node (k8s.node.name) and version: w1 6.3.1 0/")
}
