package tools_test

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// deployed is a sparse recording (five sampled requests a minute, so a
// minute's p95 is its slowest request) of "api", deployed with a
// deployment.marker span that lasts as long as the rollout, 48 s; api slows
// 95 s after the marker. A neighbour "worker" of the same traffic is deployed
// at the same time, and its recording ends in the minute of its own marker.
type deployed struct {
	// markerSecs is how long each marker span lasts.
	markerSecs int
}

var deployAt = time.Date(2026, 11, 21, 9, 40, 10, 0, time.UTC)

func (d deployed) incident(t *testing.T) (*incident.Incident, time.Time) {
	r := rand.New(rand.NewPCG(5, 9))
	slowFrom, startsAt := deployAt.Add(95*time.Second), deployAt.Add(6*time.Minute)
	inc := &incident.Incident{Meta: incident.Meta{ID: "deployed", Service: "api", Now: startsAt.Add(3 * time.Minute)}}
	add := func(svc, name string, at time.Time, dur time.Duration) {
		inc.Spans = append(inc.Spans, incident.Span{Timestamp: at, TraceID: hexID(r, 16), SpanID: hexID(r, 8), Name: name, Kind: 2,
			DurationNano: int64(dur), Resource: map[string]string{"service.name": svc, "service.version": "v1"}, Attributes: map[string]json.RawMessage{}})
	}
	for at := deployAt.Add(-90 * time.Minute); at.Before(inc.Meta.Now); at = at.Add(12 * time.Second) {
		ms := 100 + r.Float64()*40
		if !at.Before(slowFrom) {
			ms *= 8
		}
		add("api", "GET /pay", at, time.Duration(ms*float64(time.Millisecond)))
		if at.Before(deployAt.Add(time.Minute).Truncate(time.Minute)) {
			add("worker", "POST /job", at.Add(time.Second), time.Duration((100+r.Float64()*40)*float64(time.Millisecond)))
		}
	}
	marker := time.Duration(d.markerSecs) * time.Second
	add("api", "deployment.marker", deployAt, marker)
	add("worker", "deployment.marker", deployAt.Add(5*time.Second), marker)
	inc.AlertJSON = alertOf(t, "api", startsAt)
	return inc, startsAt
}

// TestMarkerSpansAreNoTraffic: a deployment.marker span records a deploy,
// not a request, so its duration is no latency. Counted as one, the 48 s
// rollout made the deploy's own minute the onset of a slowdown that began
// after it (s7-w004: the onset refined to a minute before its marker, a right
// rollback denied), and made a neighbour deployed at the same time look like
// a shared cause.
func TestMarkerSpansAreNoTraffic(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		markerSecs int
	}{
		{"a rollout of 48 s", 48},
		{"a rollout of 5 min", 300},
		{"an instant marker", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out := apiOverview(t, deployed{markerSecs: tt.markerSecs}.incident)
			on := *out.Facts.Onset
			require.True(t, on.After(deployAt), "onset %s must follow the marker %s: %s", on, deployAt, out.Compact)
			require.False(t, slices.Contains(out.Facts.CoRegressed, "worker"), "worker's marker is no regression: %s", out.Compact)
		})
	}
}

// TestMarkersCarryTheirEnvironment: each marker carries its span's
// deployment environment, and the markers' evidence the environments the
// service's latest other spans name (the gate rejects a marker of another
// environment: s70429-w055, a perf deploy of fulfilment in front of a
// production regression). The newer key wins over the older one; a marker
// that names neither has none.
func TestMarkersCarryTheirEnvironment(t *testing.T) {
	t.Parallel()
	inc, startsAt := deployed{}.incident(t)
	for i := range inc.Spans {
		s := &inc.Spans[i]
		if s.Resource["service.name"] != "api" {
			continue
		}
		s.Resource["deployment.environment.name"] = "production"
		s.Resource["deployment.environment"] = "prod" // the older key, overridden
	}
	r := rand.New(rand.NewPCG(8, 8))
	perf := incident.Span{Timestamp: deployAt.Add(-3 * time.Minute), TraceID: hexID(r, 16), SpanID: hexID(r, 8), Name: "deployment.marker", Kind: 1,
		Resource:   map[string]string{"service.name": "api", "deployment.environment": "perf"},
		Attributes: map[string]json.RawMessage{"deployment.version": json.RawMessage(`"v9"`)}}
	bare := perf
	bare.SpanID, bare.Timestamp, bare.Resource = hexID(r, 8), deployAt.Add(-2*time.Minute), map[string]string{"service.name": "api"}
	inc.Spans = append(inc.Spans, perf, bare)
	slices.SortStableFunc(inc.Spans, func(a, b incident.Span) int { return a.Timestamp.Compare(b.Timestamp) })
	res, err := newHarness(t, inc, startsAt).run(t, contracts.ToolDeploymentMarkers, `{"service":"api"}`)
	require.NoError(t, err)
	f := res.out.Facts
	require.Equal(t, []string{"production"}, f.ServiceEnvironments, res.out.Compact)
	envs := map[string]string{}
	for _, m := range f.DeploymentMarkers {
		envs[m.Version+"@"+m.At.Format("15:04")] = m.Environment
	}
	require.Equal(t, map[string]string{"v9@09:37": "perf", "v9@09:38": ""}, envs, res.out.Compact)
	require.Contains(t, res.out.Compact, `"perf"`)
}
