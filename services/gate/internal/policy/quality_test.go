package policy_test

import (
	"testing"

	"agentk/contracts"
	"agentk/services/gate/internal/policy"

	"github.com/stretchr/testify/require"
)

// TestQualityOnsetSupportsOnlyPromptAndConfig: an onset placed only by a
// shift of the service's span attributes supports a prompt or configuration
// regression and no other class; an onset of errors or latency supports
// every class as before. Red with the check removed (mutant
// gate.quality_classes).
func TestQualityOnsetSupportsOnlyPromptAndConfig(t *testing.T) {
	for _, tc := range []struct {
		class     string
		attribute string
		allow     bool
	}{
		{"prompt_regression", "gen_ai.usage.output_tokens", true},
		{"config_regression", "app.feature.variant", true},
		{"retry_storm", "gen_ai.usage.output_tokens", false},
		{"bad_release", "gen_ai.response.finish_reason", false},
		{"retry_storm", "", true},
		{"bad_release", "", true},
	} {
		t.Run(tc.class+" "+tc.attribute, func(t *testing.T) {
			in := allowing()
			in.Review.Best.Class, in.Review.Kept[0].Class = tc.class, tc.class
			in.Evidence[0].Facts.OnsetAttribute = tc.attribute
			d := policy.Evaluate(in)
			if tc.allow {
				require.Equal(t, contracts.VerdictAllow, d.Verdict, "%v", d.Checks)
				return
			}
			require.Equal(t, []string{contracts.CheckDeploymentRelated}, d.FailedChecks)
			require.Contains(t, d.Checks[4].Reason, "placed only by a shift of")
			require.Equal(t, tc.attribute, d.Checks[4].Inputs["onset_attribute"])
		})
	}
}

// TestStatusOnsetSupportsOnlyReleaseAndConfig: an onset placed only by the
// service's server spans' gRPC rejections (contracts.Facts.OnsetStatus:
// FAILED_PRECONDITION, status unset under the conventions) supports a bad
// release or a configuration regression, nothing else: a rejection shows
// the service refusing, not a prompt's answers or retries multiplying.
func TestStatusOnsetSupportsOnlyReleaseAndConfig(t *testing.T) {
	for _, tc := range []struct {
		class, status string
		allow         bool
	}{
		{"config_regression", "gRPC FAILED_PRECONDITION", true},
		{"bad_release", "gRPC FAILED_PRECONDITION", true},
		{"retry_storm", "gRPC RESOURCE_EXHAUSTED", false},
		{"prompt_regression", "gRPC FAILED_PRECONDITION", false},
		{"retry_storm", "", true},
	} {
		t.Run(tc.class+" "+tc.status, func(t *testing.T) {
			in := allowing()
			in.Review.Best.Class, in.Review.Kept[0].Class = tc.class, tc.class
			in.Evidence[0].Facts.OnsetStatus = tc.status
			d := policy.Evaluate(in)
			if tc.allow {
				require.Equal(t, contracts.VerdictAllow, d.Verdict, "%v", d.Checks)
				return
			}
			require.Equal(t, []string{contracts.CheckDeploymentRelated}, d.FailedChecks)
			require.Contains(t, d.Checks[4].Reason, "placed only by the rejections of its server spans")
			require.Equal(t, tc.status, d.Checks[4].Inputs["onset_status"])
		})
	}
}
