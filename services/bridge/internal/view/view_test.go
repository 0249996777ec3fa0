package view

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"agentk/contracts"
	"agentk/platform/links"
)

// The durations themselves are platform/human's (TestDuration there).
func TestTimeLeft(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	require.Equal(t, "4 min 10 s left", TimeLeft(now.Add(250*time.Second), now))
	require.Equal(t, "expired", TimeLeft(now, now))
}

func TestSigNozLinksResolveOnTheRealRoutes(t *testing.T) {
	t.Parallel()
	base := "https://signoz.example.com"
	start := time.Date(2026, 11, 30, 10, 12, 0, 0, time.UTC)
	d := contracts.DecisionV1{
		Service: "shop-api", DecidedAt: start.Add(8 * time.Minute),
		Checks: []contracts.CheckResult{
			{Name: contracts.CheckSLOBreach, Inputs: map[string]string{"burn_rate": "14.4", "threshold": "1"}},
			{Name: contracts.CheckDeploymentRelated, Inputs: map[string]string{
				"current_image": "shop-api:v2", "marker_trace_id": "4bf92f3577b34da6a3ce929d0e0e4736",
				"window": "2026-11-30T09:35:00Z/2026-11-30T10:05:00Z"}},
		},
	}
	f := FactsOf(d)
	require.Equal(t, "14.4", f.BurnRate)
	require.Equal(t, "shop-api:v2", f.Current)
	require.Equal(t, time.Date(2026, 11, 30, 9, 35, 0, 0, time.UTC), f.From, "the marker window opens before the alert")
	l := SigNoz(base+"/", d)
	for name, tt := range map[string]struct{ link, route string }{
		"traces": {l.Traces, links.RouteTracesExplorer},
		"logs":   {l.ErrorLogs, links.RouteLogsExplorer},
		"marker": {l.Marker, links.RouteTrace},
	} {
		route, ok := links.Resolves(base, tt.link)
		require.True(t, ok, "%s: %s", name, tt.link)
		require.Equal(t, tt.route, route, name)
	}
	require.Contains(t, l.Traces, "startTime="+"1796031300000")
	require.Empty(t, l.Alert, "no alert carried: no rule link")
}
