package rules_test

import (
	"strings"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/services/investigator/internal/loop"
	"agentk/services/investigator/internal/loop/looptest"
	"agentk/services/investigator/internal/rules"

	"github.com/stretchr/testify/require"
)

// TestConsumerLagReadsWhatMovedIt: a queue consumer's lag is a symptom; its
// class is what moved it. Lag with four times the arrivals is a surge (even
// after a release of the consumer: the mesh mailer's trap); lag with the time
// a message tripled and the arrivals flat is the consumer's own resources,
// unless a release of its own came before the onset; a lag with no onset, no
// arrivals measured, or both moving a little says nothing.
func TestConsumerLagReadsWhatMovedIt(t *testing.T) {
	t.Parallel()
	lagOnset := looptest.Base.Add(-15 * time.Minute)
	lag := func(arrivals, process *float64, onset *time.Time) loop.Evidence {
		e := ev("ov", contracts.ToolServiceOverview, contracts.Facts{ErrorRate: f64(0), P95Ms: f64(120), ConsumerLag: &contracts.ConsumerLag{
			Destinations: []string{"mail.requested"}, Messages: 600, Onset: onset, BaselineMs: f64(300), SinceMs: f64(90000),
			ArrivalRatio: arrivals, ProcessRatio: process}}, "")
		e.Service = "mailer"
		return e
	}
	// The service's own onset: a release before it counts as a deployment.
	withOnset := func(e loop.Evidence) loop.Evidence {
		e.Facts.Onset = &lagOnset
		return e
	}
	marker := func(at time.Time) loop.Evidence {
		e := ev("mk", contracts.ToolDeploymentMarkers, contracts.Facts{MarkerQuery: true, DeploymentMarkers: []contracts.DeploymentMarker{{Service: "mailer", Version: "v2", At: at}}}, "")
		e.Service = "mailer"
		return e
	}
	before := marker(lagOnset.Add(-14 * time.Minute))
	tests := []struct {
		name     string
		evidence []loop.Evidence
		class    string
		feature  rules.Feature
	}{
		{"lag with four times the arrivals is a surge", []loop.Evidence{lag(f64(4), f64(1.3), &lagOnset), before}, "traffic_surge", rules.FeatLagArrivals},
		{"a surge even with a release of the consumer's own before it", []loop.Evidence{withOnset(lag(f64(4), f64(1.3), &lagOnset)), before}, "traffic_surge", rules.FeatLagArrivals},
		{"lag with the time a message tripled is the consumer's resources", []loop.Evidence{lag(f64(1), f64(3), &lagOnset), before}, "resource_saturation", rules.FeatLagProcessing},
		{"a slower consumer after its own release is not read as saturation", []loop.Evidence{withOnset(lag(f64(1), f64(3), &lagOnset)), before}, contracts.ClassUnknown, ""},
		{"both moving: arrivals 2x, time a message 3x", []loop.Evidence{lag(f64(2), f64(3), &lagOnset), before}, contracts.ClassUnknown, ""},
		{"arrivals 1.8x with the time a message flat: only the arrivals moved", []loop.Evidence{lag(f64(1.8), f64(1.16), &lagOnset), before}, "traffic_surge", rules.FeatLagArrivals},
		{"arrivals 1.8x with the time a message up 1.6x: both moved", []loop.Evidence{lag(f64(1.8), f64(1.6), &lagOnset), before}, contracts.ClassUnknown, ""},
		{"arrivals under the quiet line, the time a message flat", []loop.Evidence{lag(f64(1.3), f64(1), &lagOnset), before}, contracts.ClassUnknown, ""},
		{"a lag that never left its baseline", []loop.Evidence{lag(f64(4), f64(1), nil), before}, contracts.ClassUnknown, ""},
		{"arrivals not measured", []loop.Evidence{lag(nil, f64(3), &lagOnset), before}, contracts.ClassUnknown, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			claims := rules.Diagnose(rules.Observe("mailer", tc.evidence))
			require.NotEmpty(t, claims)
			require.Equal(t, tc.class, claims[0].Class, "%+v", claims)
			if tc.feature != "" {
				require.True(t, strings.Contains(claims[0].Statement, string(tc.feature)), claims[0].Statement)
				require.Contains(t, claims[0].EvidenceIDs, "ov")
			}
		})
	}
}
