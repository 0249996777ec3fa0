package policy_test

import (
	"testing"

	"agentk/contracts"
	"agentk/services/gate/internal/policy"

	"github.com/stretchr/testify/require"
)

// A deployment-class diagnosis with a marker in the window is still denied
// when the sandbox's facts show another explanation: the deploy-coincides trap.
func TestAlternativeExplanationsDeny(t *testing.T) {
	for _, tc := range []struct {
		name  string
		facts func(*contracts.Facts)
		allow bool
	}{
		{"no alternative", func(f *contracts.Facts) { f.TrafficRatio = ptr(1.1) }, true},
		{"another service regressed with it", func(f *contracts.Facts) { f.CoRegressed = []string{"shop-worker"} }, false},
		{"traffic surge", func(f *contracts.Facts) { f.TrafficRatio = ptr(5.2) }, false},
		{"traffic just under the surge ratio", func(f *contracts.Facts) { f.TrafficRatio = ptr(2.99) }, true},
		{"the service itself listed as co-regressed is ignored", func(f *contracts.Facts) { f.CoRegressed = []string{svc} }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := allowing()
			tc.facts(&in.Evidence[0].Facts)
			d := policy.Evaluate(in)
			if tc.allow {
				require.Equal(t, contracts.VerdictAllow, d.Verdict, "%v", d.Checks)
				return
			}
			require.Equal(t, contracts.VerdictDeny, d.Verdict)
			require.Equal(t, []string{contracts.CheckDeploymentRelated}, d.FailedChecks)
		})
	}
}

// Facts of another service's evidence say nothing about this one.
func TestAlternativesOfAnotherServiceIgnored(t *testing.T) {
	in := allowing()
	in.Evidence = append(in.Evidence, contracts.EvidenceV1{ID: "ev-other", InvestigationID: invID, Service: "payments-api",
		Tool: contracts.ToolServiceOverview, Facts: contracts.Facts{CoRegressed: []string{"x"}, TrafficRatio: ptr(9.0)}})
	require.Equal(t, contracts.VerdictAllow, policy.Evaluate(in).Verdict)
}
