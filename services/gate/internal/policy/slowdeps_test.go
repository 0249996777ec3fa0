package policy_test

import (
	"testing"

	"agentk/contracts"
	"agentk/services/gate/internal/policy"

	"github.com/stretchr/testify/require"
)

// A dependency the service calls at its usual rate that slowed at the onset
// by most of the service's added latency denies every deployment class
// (world s6174-w037: a deploy 22 minutes before the vector index slowed).
func TestSlowDependencyDenies(t *testing.T) {
	for _, tc := range []struct {
		name, class string
		peers       []string
		allow       bool
	}{
		{"no slow dependency", "bad_release", nil, true},
		{"bad release blamed on a slow vector index", "bad_release", []string{"vector-index"}, false},
		{"retry storm blamed on a slow third party", "retry_storm", []string{"api.stripe.com"}, false},
		{"config release with a slow database", "config_regression", []string{"orders-db"}, false},
		{"prompt regression with a slow model provider", "prompt_regression", []string{"api.openai.com"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := allowing()
			in.Review.Best.Class, in.Review.Kept[0].Class = tc.class, tc.class
			in.Evidence[0].Facts.SlowDependencies = tc.peers
			d := policy.Evaluate(in)
			dep := d.Checks[4]
			require.Equal(t, contracts.CheckDeploymentRelated, dep.Name)
			if tc.allow {
				require.Equal(t, contracts.VerdictAllow, d.Verdict, "%v", d.Checks)
				require.NotContains(t, dep.Inputs, "slow_dependencies")
				return
			}
			require.Equal(t, tc.peers[0], dep.Inputs["slow_dependencies"])
			require.Equal(t, []string{contracts.CheckDeploymentRelated}, d.FailedChecks)
			require.Contains(t, dep.Reason, "a slow dependency")
		})
	}
}
