package tools_test

import (
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// saturated is a recording of "api" behind a caller: for an hour "web"
// sends it a request every two seconds (web's client span, api's server
// span beneath it); from the onset, ten minutes before the end, api's
// requests take four times as long. Each api span carries the runtime
// attribute key, as a span attribute or (inResource) a resource attribute,
// at before until the onset and at since from it; spike puts one minute of
// ten times before in the baseline.
type saturated struct {
	key           string
	before, since float64
	inResource    bool
	spike         bool
}

func (s saturated) incident(t *testing.T) (*incident.Incident, time.Time) {
	r := rand.New(rand.NewPCG(41, 43))
	now := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	onset, startsAt := now.Add(-10*time.Minute), now.Add(-4*time.Minute)
	spikeAt := now.Add(-40 * time.Minute)
	inc := &incident.Incident{Meta: incident.Meta{ID: "saturated", Service: "api", Now: now}}
	for at := now.Add(-60 * time.Minute); at.Before(now); at = at.Add(2 * time.Second) {
		trace, parent := hexID(r, 16), hexID(r, 8)
		level, dur := s.before, int64(20e6+r.Int64N(10e6))
		if !at.Before(onset) {
			level, dur = s.since, 4*dur
		}
		if s.spike && at.Truncate(time.Minute).Equal(spikeAt) {
			level = 10 * s.before
		}
		res := map[string]string{"service.name": "api", "service.version": "v2"}
		attrs := map[string]json.RawMessage{}
		if s.key != "" {
			v := strconv.FormatFloat(level*(0.97+0.06*r.Float64()), 'f', -1, 64)
			if s.inResource {
				res[s.key] = v
			} else {
				attrs[s.key] = json.RawMessage(v)
			}
		}
		inc.Spans = append(inc.Spans,
			incident.Span{Timestamp: at, TraceID: trace, SpanID: parent, Name: "GET /page", Kind: 2, DurationNano: dur + 2e6,
				Resource: map[string]string{"service.name": "web", "service.version": "w1"}, Attributes: map[string]json.RawMessage{}},
			incident.Span{Timestamp: at, TraceID: trace, SpanID: hexID(r, 8), ParentSpanID: parent, Name: "GET /x", Kind: 2, DurationNano: dur,
				Resource: res, Attributes: attrs})
	}
	inc.AlertJSON = alertOf(t, "api", startsAt)
	return inc, startsAt
}

// TestRuntimeSaturation: service_overview reads the runtime attributes of
// the service's spans (OpenTelemetry's runtime and process semantic
// conventions, current and process.runtime.* names, span or resource
// attributes) and reports the one that rose most, as medians of per-minute
// means since the onset and in the baseline; a spike in the baseline does
// not move it, and an attribute it does not know is not read. Red without
// the runtime query (no fact at all).
func TestRuntimeSaturation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		s             saturated
		key           string // "" when no fact is expected
		before, since float64
	}{
		{"JVM heap as a span attribute", saturated{key: "jvm.memory.used", before: 1.1e9, since: 1.9e9}, "jvm.memory.used", 1.1e9, 1.9e9},
		{"container CPU as a resource attribute", saturated{key: "container.cpu.usage", before: 0.4, since: 0.98, inResource: true}, "container.cpu.usage", 0.4, 0.98},
		{"the older process.runtime name", saturated{key: "process.runtime.jvm.cpu.utilization", before: 0.3, since: 0.9}, "process.runtime.jvm.cpu.utilization", 0.3, 0.9},
		{"flat CPU", saturated{key: "process.cpu.utilization", before: 0.3, since: 0.3}, "process.cpu.utilization", 0.3, 0.3},
		{"a spike in the baseline", saturated{key: "go.memory.used", before: 2e8, since: 2e8, spike: true}, "go.memory.used", 2e8, 2e8},
		{"a counter that only grows is not read", saturated{key: "process.cpu.time", before: 100, since: 400}, "", 0, 0},
		{"no runtime attribute", saturated{}, "", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			inc, startsAt := tt.s.incident(t)
			h := newHarness(t, inc, startsAt)
			h.now = inc.Meta.Now
			res, err := h.run(t, contracts.ToolServiceOverview, `{"service":"api"}`)
			require.NoError(t, err)
			require.NotNil(t, res.out.Facts.Onset, res.out.Compact)
			l := res.out.Facts.RuntimeSaturation
			if tt.key == "" {
				require.Nil(t, l, res.out.Compact)
				return
			}
			require.NotNil(t, l, res.out.Compact)
			require.Equal(t, tt.key, l.Attribute)
			require.InEpsilon(t, tt.before, l.Baseline, 0.03)
			require.InEpsilon(t, tt.since, l.Since, 0.03)
			require.GreaterOrEqual(t, l.Minutes, 9)
			require.GreaterOrEqual(t, l.BaselineMinutes, 10)
			require.Contains(t, res.out.Compact, "runtime attribute "+tt.key+" on the service's spans")
		})
	}
}

// TestRuntimeQueryRefused: a SigNoz that refuses the runtime query (a
// bare key it has never seen: "field `jvm.gc.duration` not found") leaves
// the overview whole, without the runtime fact, and says so; every other
// fact but the numbers its text cites is what it is with the query
// answered.
func TestRuntimeQueryRefused(t *testing.T) {
	t.Parallel()
	inc, startsAt := saturated{key: "jvm.memory.used", before: 1.1e9, since: 1.9e9}.incident(t)
	h := newHarness(t, inc, startsAt)
	h.now = inc.Meta.Now
	answered, err := h.run(t, contracts.ToolServiceOverview, `{"service":"api"}`)
	require.NoError(t, err)
	require.NotNil(t, answered.out.Facts.RuntimeSaturation)
	h.refuse = "signoz: HTTP 400: field `jvm.gc.duration` not found"
	refused, err := h.run(t, contracts.ToolServiceOverview, `{"service":"api"}`)
	require.NoError(t, err)
	require.Nil(t, refused.out.Facts.RuntimeSaturation)
	require.Contains(t, refused.out.Compact, "runtime attributes not measured: SigNoz refused the query")
	require.Contains(t, refused.out.Compact, "jvm.gc.duration")
	// The numbers the text cites differ (the runtime line, the refusal's).
	answered.out.Facts.RuntimeSaturation, answered.out.Facts.Numbers, refused.out.Facts.Numbers = nil, nil, nil
	require.Equal(t, answered.out.Facts, refused.out.Facts)
}

// TestInboundTrafficBehindACaller: a service whose every request comes
// from a caller has no root span; its inbound traffic ratio is read from
// its entry spans. Red with the ratio read from root spans alone (nil).
func TestInboundTrafficBehindACaller(t *testing.T) {
	t.Parallel()
	inc, startsAt := saturated{}.incident(t)
	h := newHarness(t, inc, startsAt)
	h.now = inc.Meta.Now
	res, err := h.run(t, contracts.ToolServiceOverview, `{"service":"api"}`)
	require.NoError(t, err)
	require.NotNil(t, res.out.Facts.TrafficRatio, res.out.Compact)
	require.InDelta(t, 1.0, *res.out.Facts.TrafficRatio, 0.1)
}

// TestRunningReleaseIsTheCanary: a canary that serves 45% of the requests
// beside the version it replaces, and fails, is the running release the
// comparison reads, though its predecessor served more since the onset.
// Red with the running release taken as the version with most entry spans
// (Version "v1").
func TestRunningReleaseIsTheCanary(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(47, 53))
	now := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	onset, startsAt := now.Add(-10*time.Minute), now.Add(-4*time.Minute)
	deploy := onset.Add(-3 * time.Minute)
	inc := &incident.Incident{Meta: incident.Meta{ID: "canary", Service: "api", Now: now}}
	for at := now.Add(-60 * time.Minute); at.Before(now); at = at.Add(2 * time.Second) {
		v := "v1"
		if !at.Before(deploy) && r.Float64() < 0.45 {
			v = "v2"
		}
		s := incident.Span{Timestamp: at, TraceID: hexID(r, 16), SpanID: hexID(r, 8), Name: "PUT /cart", Kind: 2, DurationNano: 15e6,
			Resource: map[string]string{"service.name": "api", "service.version": v}, Attributes: map[string]json.RawMessage{}}
		if v == "v2" && !at.Before(onset) && r.Float64() < 0.5 {
			s.HasError, s.StatusCode, s.StatusMessage = true, 2, "panic: assignment to entry in nil map"
		}
		inc.Spans = append(inc.Spans, s)
	}
	inc.AlertJSON = alertOf(t, "api", startsAt)
	h := newHarness(t, inc, startsAt)
	h.now = inc.Meta.Now
	res, err := h.run(t, contracts.ToolServiceOverview, `{"service":"api"}`)
	require.NoError(t, err)
	rel := res.out.Facts.Release
	require.NotNil(t, rel, res.out.Compact)
	require.Equal(t, "v2", rel.Version, res.out.Compact)
	require.Positive(t, rel.NewErrors, res.out.Compact)
	require.Positive(t, rel.OtherRequests, res.out.Compact)
}
