package policy

import (
	"testing"

	"github.com/stretchr/testify/require"

	"agentk/contracts"
)

// TestNextStepFollowsTheCheckInputs: the next step never says "no marker"
// when the failing check lists one.
func TestNextStepFollowsTheCheckInputs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		inputs  map[string]string
		want    string
		notWant string
	}{
		{"marker found but check failed", map[string]string{"marker": "shop-api@v2@2026-11-30T10:02:00Z"}, "shop-api@v2@2026-11-30T10:02:00Z", "nothing in the recorded telemetry"},
		{"markers in window", map[string]string{"markers_in_window": "shop-api@v2@x"}, "a deployment marker was found", "nothing in the recorded telemetry"},
		{"never looked", map[string]string{"onset": "2026-11-30T10:05:00Z"}, "never queried", "a deployment marker was found"},
		{"nothing found", map[string]string{"onset": "2026-11-30T10:05:00Z", "marker_queries": "ev-1"}, "nothing in the recorded telemetry", "a deployment marker was found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := nextStep(contracts.CheckResult{Name: contracts.CheckDeploymentRelated, Reason: "the ledger says v3 runs now", Inputs: tt.inputs}, "shop-api")
			require.Contains(t, got, tt.want)
			require.NotContains(t, got, tt.notWant)
		})
	}
}

func TestNextStepSaysSigNozCouldNotBeRead(t *testing.T) {
	t.Parallel()
	c := contracts.CheckResult{Name: contracts.CheckConfidence,
		Reason: "the investigation did not complete (minimum_plan_failed: " + contracts.IncompleteSigNozUnreachable + " (...)): an incomplete investigation can never approve"}
	got := nextStep(c, "shop-api")
	require.Contains(t, got, contracts.IncompleteSigNozUnreachable)
	require.NotContains(t, got, "no evidence-backed diagnosis")
}
