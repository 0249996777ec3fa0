package rules_test

import (
	"strconv"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/services/investigator/internal/loop"
	"agentk/services/investigator/internal/loop/looptest"
	"agentk/services/investigator/internal/rules"

	"github.com/stretchr/testify/require"
)

// TestTrafficSurgeIsArrivalsNotKeptOutcomes: a traffic ratio of 4 after a
// release reads traffic_surge only when the ordinary requests (no error,
// not slow) rose with it. A collector that keeps every failing or slow
// trace (tail sampling, e2e/incidents-heldout4's finding 1; worldgen's
// tail-sampled worlds) raises the kept count of a release's failures with
// no rise in arrivals: its ordinary requests a minute stay as they were, and
// the release's own row decides. Unmeasured, the kept count alone decides,
// as before. On main every case read traffic_surge ("inbound traffic since
// the onset is far above its baseline").
func TestTrafficSurgeIsArrivalsNotKeptOutcomes(t *testing.T) {
	t.Parallel()
	onset := looptest.Base.Add(-15 * time.Minute)
	overview := ev("ov", contracts.ToolServiceOverview, contracts.Facts{ErrorRate: f64(0.3), P95Ms: f64(400), Onset: &onset, TrafficRatio: f64(4)}, "")
	marker := ev("mk", contracts.ToolDeploymentMarkers, contracts.Facts{MarkerQuery: true, DeploymentMarkers: []contracts.DeploymentMarker{{Service: "shop-api", Version: "v8", At: onset.Add(-4 * time.Minute)}}}, "")
	ordinary := func(before, after float64) []loop.Evidence {
		from, to := onset.Add(-10*time.Minute), onset.Add(5*time.Minute)
		filter := "kind_string IN ('Server', 'Consumer') AND has_error = false AND duration_nano < 800000000"
		b := agg("ob", contracts.ToolArgs{Service: "shop-api", Aggregation: "count", GroupBy: []string{"kind_string"}, Filter: filter, From: &from, To: &onset},
			`{"kind_string":"Server","count":`+ftoa(before)+`}`)
		b.From, b.To = from, onset
		a := agg("oa", contracts.ToolArgs{Service: "shop-api", Aggregation: "count", GroupBy: []string{"name"}, Filter: filter, From: &onset, To: &to},
			`{"name":"GET /cart","count":`+ftoa(after*0.6)+`}`, `{"name":"POST /checkout","count":`+ftoa(after*0.4)+`}`)
		a.From, a.To = onset, to
		return []loop.Evidence{b, a}
	}
	tests := []struct {
		name     string
		evidence []loop.Evidence
		class    string
	}{
		{"ordinary requests not measured: the kept count decides", nil, "traffic_surge"},
		{"ordinary requests as many a minute as before: the release's failures were kept", ordinary(100, 40), "bad_release"},
		{"ordinary requests fewer: the release failed some of them", ordinary(100, 20), "bad_release"},
		{"ordinary requests a little up, under OrdinarySurge (1.4x)", ordinary(100, 70), "bad_release"},
		{"ordinary requests up 1.5x: arrivals rose", ordinary(100, 75), "traffic_surge"},
		{"ordinary requests up with the kept count: a surge", ordinary(100, 200), "traffic_surge"},
		{"no ordinary request before: unmeasured", ordinary(0, 40), "traffic_surge"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			evidence := append([]loop.Evidence{overview, marker}, tt.evidence...)
			claims := rules.Diagnose(rules.Observe("shop-api", evidence))
			require.Equal(t, tt.class, claims[0].Class, claims[0].Statement)
		})
	}
}

func ftoa(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
