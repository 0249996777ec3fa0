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

// TestOverviewReadsConfigChangeLogs: a flag flipped at runtime four
// minutes after v2 started, logged by the flag client at INFO, is read as
// a configuration change in the onset's minute; a flag client's start
// ("loaded") is not. Red with sandbox.config_change_logs.
func TestOverviewReadsConfigChangeLogs(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(48, 9))
	now := time.Date(2026, 12, 9, 10, 30, 0, 0, time.UTC)
	deploy := now.Add(-20 * time.Minute)
	flip := deploy.Add(4*time.Minute + 20*time.Second)
	startsAt := flip.Add(8 * time.Minute)
	inc := &incident.Incident{Meta: incident.Meta{ID: "flip", Service: "api", Now: now}}
	for at := now.Add(-70 * time.Minute); at.Before(now); at = at.Add(2 * time.Second) {
		v := "v1"
		if !at.Before(deploy) {
			v = "v2"
		}
		s := incident.Span{Timestamp: at, TraceID: hexID(r, 16), SpanID: hexID(r, 8), Name: "POST /accruals", Kind: 2, DurationNano: 12e6,
			Resource: map[string]string{"service.name": "api", "service.version": v}, Attributes: map[string]json.RawMessage{}}
		if !at.Before(flip) && r.Float64() < 0.4 {
			s.HasError, s.StatusCode, s.StatusMessage = true, 2, "IllegalStateException: no multiplier tier"
		}
		inc.Spans = append(inc.Spans, s)
	}
	res := map[string]string{"service.name": "api", "service.version": "v2"}
	inc.Logs = []incident.Log{
		{Timestamp: deploy.Add(5 * time.Second), SeverityText: "INFO", Body: "Flag configuration loaded: 14 flags", Resource: res},
		{Timestamp: flip.Add(300 * time.Millisecond), SeverityText: "INFO", Body: "Flag configuration changed: [points-multiplier-v3]", Resource: res},
		{Timestamp: flip.Add(500 * time.Millisecond), SeverityText: "INFO", Body: "Flag configuration changed: [points-multiplier-v3]", Resource: res},
	}
	inc.AlertJSON = alertOf(t, "api", startsAt)
	h := newHarness(t, inc, startsAt)
	h.now = inc.Meta.Now
	out, err := h.run(t, contracts.ToolServiceOverview, `{"service":"api"}`)
	require.NoError(t, err)
	f := out.out.Facts
	require.NotNil(t, f.Onset, out.out.Compact)
	require.Equal(t, []contracts.LogMinute{{At: flip.Truncate(time.Minute), Logs: 2}}, f.ConfigChanges, out.out.Compact)
	require.Contains(t, out.out.Compact, "logs saying the configuration changed at runtime (a feature flag, a refresh): 2, first in the minute from 2026-12-09T10:14:00Z")
}
