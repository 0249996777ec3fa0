package policy_test

import (
	"testing"

	"agentk/contracts"
	"agentk/services/gate/internal/policy"

	"github.com/stretchr/testify/require"
)

// A dependency the service calls at its usual rate that slowed at the onset
// by most of the service's added latency denies a bad release and a retry
// storm (world s6174-w037: a deploy 22 minutes before the vector index
// slowed), not a prompt or configuration release, which changes what the
// service asks the dependency.
func TestSlowDependencyDenies(t *testing.T) {
	for _, tc := range []struct {
		name, class string
		peers       []string
		allow       bool
	}{
		{"no slow dependency", "bad_release", nil, true},
		{"bad release blamed on a slow vector index", "bad_release", []string{"vector-index"}, false},
		{"retry storm blamed on a slow third party", "retry_storm", []string{"api.stripe.com"}, false},
		{"config release that asks the index for more neighbours", "config_regression", []string{"vector-index"}, true},
		{"prompt release whose answers run twice as long", "prompt_regression", []string{"api.openai.com"}, true},
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
				if len(tc.peers) == 0 {
					require.NotContains(t, dep.Inputs, "slow_dependencies")
				} else {
					require.Equal(t, tc.peers[0], dep.Inputs["slow_dependencies"])
				}
				return
			}
			require.Equal(t, tc.peers[0], dep.Inputs["slow_dependencies"])
			require.Equal(t, []string{contracts.CheckDeploymentRelated}, d.FailedChecks)
			require.Contains(t, dep.Reason, "a slow dependency")
		})
	}
}
