package tools_test

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// pressured is a recording around "api" (beside "batch"): for an hour it
// serves a request every two seconds; from the onset, ten minutes before the
// end, 30% of them fail. Its logs are the case: each line is written once a
// minute, since the onset or before it.
type pressured struct {
	since, before []logLine
}

type logLine struct{ svc, severity, body string }

func (p pressured) incident(t *testing.T) (*incident.Incident, time.Time) {
	r := rand.New(rand.NewPCG(31, 37))
	now := time.Date(2026, 11, 20, 14, 0, 0, 0, time.UTC)
	onset, startsAt := now.Add(-10*time.Minute), now.Add(-4*time.Minute)
	inc := &incident.Incident{Meta: incident.Meta{ID: "pressured", Service: "api", Now: now}}
	for at := now.Add(-60 * time.Minute); at.Before(now); at = at.Add(2 * time.Second) {
		s := incident.Span{Timestamp: at, TraceID: hexID(r, 16), SpanID: hexID(r, 8), Name: "GET /x", Kind: 2, DurationNano: 20e6,
			Resource: map[string]string{"service.name": "api", "service.version": "v2"}, Attributes: map[string]json.RawMessage{}}
		if !at.Before(onset) && r.Float64() < 0.3 {
			s.HasError, s.StatusCode, s.StatusMessage = true, 2, "503 server overloaded"
		}
		inc.Spans = append(inc.Spans, s)
		if at.Second() != 30 {
			continue
		}
		lines := p.before
		if !at.Before(onset) {
			lines = p.since
		}
		for _, l := range lines {
			inc.Logs = append(inc.Logs, incident.Log{Timestamp: at, SeverityText: l.severity, Body: l.body,
				Resource: map[string]string{"service.name": l.svc, "service.version": "v2"}, Attributes: map[string]json.RawMessage{}})
		}
	}
	inc.AlertJSON = alertOf(t, "api", startsAt)
	return inc, startsAt
}

// TestResourcePressure: service_overview counts the service's own WARN-or-
// above logs that name memory, heap, GC or CPU pressure, before and since the
// onset, whoever wrote them and however the runtime spells them; not INFO
// lines, not a panic's "invalid memory address", not a rate limit's
// throttling, not another service's logs.
func TestResourcePressure(t *testing.T) {
	t.Parallel()
	gc := logLine{"api", "WARN", "GC pause 1.4s (heap 934 MiB of 1024 MiB)"}
	tests := []struct {
		name           string
		p              pressured
		logs, baseline int64
	}{
		{"GC pauses since the onset", pressured{since: []logLine{gc}}, 10, 0},
		{"a JVM's full collections and its OutOfMemoryError", pressured{since: []logLine{
			{"api", "Warning", "[gc] Pause Full (G1 Compaction Pause) 1180M->1160M(1024M) 1.900s"},
			{"api", "FATAL", "java.lang.OutOfMemoryError: Java heap space"}}}, 20, 0},
		{"CPU throttling of the container", pressured{since: []logLine{{"api", "warn", "cgroup cpu throttled: 625 ms of the last 1000 ms"}}}, 10, 0},
		{"memory against the container limit, before and since", pressured{
			before: []logLine{{"api", "WARNING", "memory usage above 90% of the container limit"}},
			since:  []logLine{{"api", "ERROR", "memory usage above 90% of the container limit"}}}, 10, 50},
		{"the same line at INFO", pressured{since: []logLine{{"api", "INFO", gc.body}}}, 0, 0},
		{"a release's panic", pressured{since: []logLine{{"api", "ERROR", "runtime error: invalid memory address or nil pointer dereference"}}}, 0, 0},
		{"a rate limit's throttling", pressured{since: []logLine{{"api", "WARN", "request throttled by upstream: 429 Too Many Requests"}}}, 0, 0},
		{"another service's GC pauses", pressured{since: []logLine{{"batch", "WARN", gc.body}}}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			inc, startsAt := tt.p.incident(t)
			h := newHarness(t, inc, startsAt)
			h.now = inc.Meta.Now
			res, err := h.run(t, contracts.ToolServiceOverview, `{"service":"api"}`)
			require.NoError(t, err)
			require.NotNil(t, res.out.Facts.Onset, res.out.Compact)
			p := res.out.Facts.ResourcePressure
			require.NotNil(t, p, res.out.Compact)
			require.Equal(t, tt.logs, p.Logs, res.out.Compact)
			require.Equal(t, tt.baseline, p.BaselineLogs, res.out.Compact)
			require.Equal(t, 10, p.Minutes, res.out.Compact)
			require.Contains(t, res.out.Compact, "logs at WARN or above naming memory, heap, GC or CPU pressure: ")
		})
	}
}
