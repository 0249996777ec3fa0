package livedemo

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"agentk/cmd/agentk/livesignoz"
	"agentk/contracts/incident"

	"github.com/goccy/go-yaml"
	"github.com/stretchr/testify/require"
)

var at = time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC)

// server is a server span of svc at t.
func server(svc string, t time.Time, failed bool) incident.Span {
	return incident.Span{Timestamp: t, Name: "GET /ask", Kind: 2, HasError: failed, TraceID: fmt.Sprintf("t%d", t.UnixNano()),
		SpanID: fmt.Sprintf("s%d", t.UnixNano()), Resource: map[string]string{"service.name": svc}}
}

func marker(version string, t time.Time, backfilled bool) incident.Span {
	v, _ := json.Marshal(version)
	s := incident.Span{Timestamp: t, Name: "deployment.marker", Resource: map[string]string{"service.name": Service},
		Attributes: map[string]json.RawMessage{"deployment.version": v}}
	if backfilled {
		s.Resource["agentk.demo.backfill"] = "true"
	}
	return s
}

func TestBurnRate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		spans    []incident.Span
		wantBurn float64
		wantReqs int
	}{
		{"no traffic", nil, 0, 0},
		{"no errors", []incident.Span{server(Service, at.Add(-time.Minute), false), server(Service, at.Add(-2*time.Minute), false)}, 0, 2},
		{"half failing burns 50x a 1% budget", []incident.Span{server(Service, at.Add(-time.Minute), true), server(Service, at.Add(-2*time.Minute), false)}, 50, 2},
		{"outside the rule's window", []incident.Span{server(Service, at.Add(-liveRuleWindow-time.Second), true), server(Service, at.Add(-time.Minute), false)}, 0, 1},
		{"in the future", []incident.Span{server(Service, at.Add(time.Second), true)}, 0, 0},
		{"another service", []incident.Span{server("cart-api", at.Add(-time.Minute), true)}, 0, 0},
		{"not a server span", []incident.Span{func() incident.Span { s := server(Service, at.Add(-time.Minute), true); s.Kind = 3; return s }()}, 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st := livesignoz.New("k", nil)
			st.Add(tc.spans...)
			burn, reqs := burnRate(st, at)
			require.InDelta(t, tc.wantBurn, burn, 1e-9)
			require.Equal(t, tc.wantReqs, reqs)
		})
	}
}

func TestMarkers(t *testing.T) {
	t.Parallel()
	st := livesignoz.New("k", nil)
	st.Add(marker("v1", at, false), marker("v2", at.Add(time.Minute), false), marker("v2", at.Add(3*time.Minute), false),
		marker("v3", at, true))
	cases := []struct {
		version string
		has     bool
		latest  time.Time
	}{
		{"v1", true, at},
		{"v2", true, at.Add(3 * time.Minute)},
		{"v3", false, time.Time{}}, // a backfilled copy is not a deployment
		{"v4", false, time.Time{}},
	}
	for _, tc := range cases {
		require.Equal(t, tc.has, hasMarker(st, Service, tc.version), tc.version)
		require.Equal(t, tc.latest, latestMarker(st, Service, tc.version), tc.version)
		require.False(t, hasMarker(st, Origin, tc.version), "a marker of %s is not one of %s", Service, Origin)
	}
}

func TestBackfill(t *testing.T) {
	t.Parallel()
	from, to := at.Add(-20*time.Second), at.Add(-5*time.Second) // a 15 s warm-up
	cases := []struct {
		name  string
		seed  []incident.Span
		from  time.Time
		to    time.Time
		tiles bool
	}{
		{"nothing received", nil, from, to, false},
		{"a window under a second", []incident.Span{server(Service, from, false)}, from, from.Add(500 * time.Millisecond), false},
		{"the warm-up laid over the past", []incident.Span{server(Service, from, false), server(Service, from.Add(10*time.Second), true),
			marker("v1", from.Add(time.Second), false), server("cart-api", from, false), server(Service, to, false)}, from, to, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st := livesignoz.New("k", nil)
			st.Add(tc.seed...)
			n := backfill(st, tc.from, tc.to, at)
			copies := st.Spans(func(s incident.Span) bool { return s.Resource["agentk.demo.backfill"] == "true" })
			require.Len(t, copies, n)
			if !tc.tiles {
				require.Zero(t, n)
				return
			}
			// Two seed spans of the service in [from, to) (not the marker, not
			// the other service, not the one at to), one copy of each per 15 s
			// tile over [now−2h05m, now−55m): 70 minutes, 280 tiles.
			require.Equal(t, 2*280, n)
			lo, hi := at.Add(-2*time.Hour-5*time.Minute), at.Add(-55*time.Minute)
			ids := map[string]bool{}
			for _, c := range copies {
				require.False(t, c.Timestamp.Before(lo) || !c.Timestamp.Before(hi), "copy at %s", c.Timestamp)
				require.Equal(t, Service, c.Service())
				require.NotEqual(t, "deployment.marker", c.Name)
				require.Len(t, c.SpanID, 16)
				require.Len(t, c.TraceID, 32)
				require.False(t, ids[c.SpanID], "span id %s twice", c.SpanID)
				ids[c.SpanID] = true
			}
		})
	}
}

func TestComposeFile(t *testing.T) {
	t.Parallel()
	var doc struct {
		Services map[string]struct {
			Image       string            `yaml:"image"`
			Environment map[string]string `yaml:"environment"`
			Ports       []string          `yaml:"ports"`
		} `yaml:"services"`
		Networks map[string]struct {
			External bool   `yaml:"external"`
			Name     string `yaml:"name"`
		} `yaml:"networks"`
	}
	require.NoError(t, yaml.Unmarshal([]byte(composeFile("repo/shop-api:v2", "http://172.19.0.1:4318", "proj_net", 38277)), &doc))
	svc := doc.Services[Service]
	require.Equal(t, "repo/shop-api:v2", svc.Image)
	require.Equal(t, "http://172.19.0.1:4318", svc.Environment["OTEL_EXPORTER_OTLP_ENDPOINT"])
	require.Equal(t, []string{"127.0.0.1:38277:8080"}, svc.Ports, "published on loopback only")
	require.True(t, doc.Networks["default"].External)
	require.Equal(t, "proj_net", doc.Networks["default"].Name)
}

func TestLiveAlert(t *testing.T) {
	t.Parallel()
	var body struct {
		Status string `json:"status"`
		Alerts []struct {
			Labels      map[string]string `json:"labels"`
			Annotations map[string]string `json:"annotations"`
			StartsAt    string            `json:"startsAt"`
		} `json:"alerts"`
	}
	require.NoError(t, json.Unmarshal(liveAlert("proj", 17.9, at), &body))
	require.Equal(t, "firing", body.Status)
	require.Len(t, body.Alerts, 1)
	a := body.Alerts[0]
	require.Equal(t, Service, a.Labels["service.name"])
	require.Equal(t, "proj", a.Labels["ruleId"])
	require.Equal(t, "17.9", a.Annotations["burn_rate"])
	require.Equal(t, at.Format(time.RFC3339), a.StartsAt)
	require.True(t, strings.Contains(a.Annotations["description"], "no SigNoz rule engine"))
}

func TestShortID(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"sha256:0123456789abcdef0123": "sha256:0123456789ab",
		"0123456789abcdef":            "sha256:0123456789ab",
		"short":                       "short",
		"":                            "",
	}
	for in, want := range cases {
		require.Equal(t, want, ShortID(in), in)
	}
}
