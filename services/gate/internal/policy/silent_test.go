package policy_test

import (
	"testing"

	"agentk/contracts"
	"agentk/services/gate/internal/policy"

	"github.com/stretchr/testify/require"
)

// TestConfigReleaseSilentDependencyDenies: a configuration release is no
// explanation of a dependency failing at its usual call rate whose failed
// calls mostly say nothing (silent_dependencies: no status, no text), the
// trap of e2e/incidents-heldout15's Redis failover 26 s after matchmaker's
// promotion; a failing dependency whose calls carry the caller's own words
// (a wrong host's "no such host") stays explained by it, and every other
// class is denied by the failing dependency as before.
func TestConfigReleaseSilentDependencyDenies(t *testing.T) {
	const peer = "redis-mm-streams.data.svc.cluster.local"
	for _, tc := range []struct {
		name    string
		class   string
		failing []string
		silent  []string
		allow   bool
		reason  string
	}{
		{"a silent failing dependency", "config_regression", []string{peer}, []string{peer}, false, "no status and no error text"},
		{"a failing dependency with the caller's own words", "config_regression", []string{peer}, nil, true, ""},
		{"silent, but no failing dependency (stale fact)", "config_regression", nil, []string{peer}, true, ""},
		{"a bad release over a silent dependency", "bad_release", []string{peer}, []string{peer}, false, "a failing dependency, not a release of"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := allowing()
			in.Review.Best.Class, in.Review.Kept[0].Class = tc.class, tc.class
			in.Evidence[0].Facts.FailingDependencies = tc.failing
			in.Evidence[0].Facts.SilentDependencies = tc.silent
			d := policy.Evaluate(in)
			dep := d.Checks[4]
			require.Equal(t, contracts.CheckDeploymentRelated, dep.Name)
			if tc.allow {
				require.Equal(t, contracts.VerdictAllow, d.Verdict, "%v", d.Checks)
				return
			}
			require.Equal(t, []string{contracts.CheckDeploymentRelated}, d.FailedChecks)
			require.Contains(t, dep.Reason, tc.reason)
			require.Contains(t, dep.Reason, peer)
		})
	}
}
