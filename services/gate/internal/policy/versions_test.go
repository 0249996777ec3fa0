package policy_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"agentk/contracts"
	"agentk/services/gate/internal/policy"
)

// A rollback returns to the previous version; while a rolling update keeps
// it serving beside the running one, its failing beyond its history is an
// outside cause that fails every version (h44order's twin of
// ho4-typeerror-link-platform-account-portal: platform-auth answering null
// handles 5 s after 8.4.0's marker, the old version throwing the same
// TypeError; persona:liar's and persona:wrong's retry_storm was rolled back).
func TestOtherVersionsFailDeny(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		class  string
		other  *contracts.OtherVersionErrors
		reason string
	}{
		{"the previous version stopped serving at the deploy", "retry_storm", &contracts.OtherVersionErrors{HistoryRequests: 3600, HistoryErrors: 4}, ""},
		{"the previous version serves beside it, on its history", "retry_storm", &contracts.OtherVersionErrors{Requests: 120, Errors: 1, HistoryRequests: 3600, HistoryErrors: 40}, ""},
		{"a handful of the previous version's spans", "bad_release", &contracts.OtherVersionErrors{Requests: 9, Errors: 9, HistoryRequests: 3600, HistoryErrors: 4}, ""},
		{"the previous version fails far less than the running one", "bad_release", &contracts.OtherVersionErrors{Requests: 200, Errors: 8, HistoryRequests: 3600, HistoryErrors: 4}, ""},
		{"the twin as read: the old version fails beside the new one, blamed on retries", "retry_storm", &contracts.OtherVersionErrors{Requests: 29, Errors: 10, HistoryRequests: 900, HistoryErrors: 30}, "fail beside"},
		{"the old version fails beside the new one, blamed on the release", "bad_release", &contracts.OtherVersionErrors{Requests: 60, Errors: 20, HistoryRequests: 3600, HistoryErrors: 4}, "fail beside"},
		{"the old version fails beside the new one, blamed on a configuration", "config_regression", &contracts.OtherVersionErrors{Requests: 60, Errors: 20, HistoryRequests: 3600, HistoryErrors: 4}, "fail beside"},
		{"not compared: fails closed", "retry_storm", nil, "no evidence compared the errors"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := allowing()
			in.Review.Best.Class, in.Review.Kept[0].Class = tc.class, tc.class
			in.Evidence[0].Facts.Release.OtherVersions = tc.other
			d := policy.Evaluate(in)
			if tc.reason == "" {
				require.Equal(t, contracts.VerdictAllow, d.Verdict, "%v", d.Checks)
				return
			}
			require.Equal(t, []string{contracts.CheckDeploymentRelated}, d.FailedChecks)
			require.Contains(t, d.Checks[4].Reason, tc.reason)
		})
	}
}
