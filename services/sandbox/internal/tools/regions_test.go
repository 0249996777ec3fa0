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

// TestOverviewMeasuresRegionTraffic: a service served from two regions,
// 60% and 40% of its requests, until one failed over to the other; the
// overview measures each region's entry spans a minute on both sides of the
// onset. Red with sandbox.region_traffic.
func TestOverviewMeasuresRegionTraffic(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(48, 10))
	now := time.Date(2026, 12, 9, 16, 38, 0, 0, time.UTC)
	failover := now.Add(-16 * time.Minute)
	startsAt := failover.Add(9 * time.Minute)
	inc := &incident.Incident{Meta: incident.Meta{ID: "failover", Service: "api", Now: now}}
	for at := now.Add(-90 * time.Minute); at.Before(now); at = at.Add(time.Second) {
		region := "eu-central-1"
		if at.Before(failover) && r.Float64() < 0.6 {
			region = "eu-west-1"
		}
		s := incident.Span{Timestamp: at, TraceID: hexID(r, 16), SpanID: hexID(r, 8), Name: "GET /bookings/{ref}", Kind: 2, DurationNano: 12e6,
			Resource: map[string]string{"service.name": "api", "service.version": "v2", "cloud.region": region}, Attributes: map[string]json.RawMessage{}}
		if !at.Before(failover) {
			s.DurationNano = 90e6
			if r.Float64() < 0.15 {
				s.HasError, s.StatusCode, s.StatusMessage = true, 2, "MongoTimeoutException: Timed out after 2000 ms while waiting for a connection"
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
	require.Len(t, f.RegionTraffic, 2, out.out.Compact)
	central, west := f.RegionTraffic[0], f.RegionTraffic[1]
	require.Equal(t, "eu-central-1", central.Region)
	require.Equal(t, "eu-west-1", west.Region)
	require.InDelta(t, 36, west.BaselinePerMin, 6, out.out.Compact)
	require.Less(t, west.PerMin, 1.0, out.out.Compact)
	require.InDelta(t, 2.5, central.Ratio, 0.4, out.out.Compact)
	require.Contains(t, out.out.Compact, "entry spans a minute by region (cloud.region), baseline -> since the onset: eu-central-1 ")
}
