package policy_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"agentk/contracts"
	"agentk/services/gate/internal/policy"
)

// TestRuntimeConfigChangeDenies: a deployment-class diagnosis is denied
// when the service logged a runtime configuration change at the onset
// (10:05), at least a minute after the ledger's start of v2 (10:02): a
// flag flipped three minutes after the release (e2e/incidents-heldout9's
// flag-flip trap and its twin). Red with gate.runtime_config_change.
func TestRuntimeConfigChangeDenies(t *testing.T) {
	m := func(hh, mm int, n int64) contracts.LogMinute {
		return contracts.LogMinute{At: time.Date(2026, 11, 30, hh, mm, 0, 0, time.UTC), Logs: n}
	}
	for _, tc := range []struct {
		name     string
		class    string
		minutes  []contracts.LogMinute
		allow    bool
		contains []string
	}{
		{"a flag changed in the onset's minute", "bad_release", []contracts.LogMinute{m(10, 5, 3)}, false,
			[]string{"shop-api logged 3 runtime configuration change(s)", "from the minute 2026-11-30T10:05:00Z, at the onset 2026-11-30T10:05:00Z and 3m0s after \"v2\" started (the ledger: 2026-11-30T10:02:00Z)", "cannot be told from a release of shop-api"}},
		{"on a configuration release", "config_regression", []contracts.LogMinute{m(10, 4, 1)}, false, []string{"logged 1 runtime"}},
		{"on a retry storm", "retry_storm", []contracts.LogMinute{m(10, 6, 2)}, false, []string{"logged 2 runtime"}},
		{"three minutes before the onset, the release's first minute left out", "bad_release", []contracts.LogMinute{m(10, 2, 5), m(10, 3, 1)}, false, []string{"logged 1 runtime", "from the minute 2026-11-30T10:03:00Z"}},
		{"in the release's first minute only", "bad_release", []contracts.LogMinute{m(10, 2, 5)}, true, nil},
		{"long before the onset", "bad_release", []contracts.LogMinute{m(9, 50, 5)}, true, nil},
		{"after the onset's next minute", "bad_release", []contracts.LogMinute{m(10, 7, 4)}, true, nil},
		{"none", "bad_release", nil, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := allowing()
			in.Review.Best.Class, in.Review.Kept[0].Class = tc.class, tc.class
			in.Evidence[0].Facts.ConfigChanges = tc.minutes
			d := policy.Evaluate(in)
			dep := d.Checks[4]
			require.Equal(t, contracts.CheckDeploymentRelated, dep.Name)
			if tc.allow {
				require.NotContains(t, dep.Reason, "runtime configuration change")
				if tc.class == "bad_release" {
					require.Equal(t, contracts.VerdictAllow, d.Verdict, "%v", d.Checks)
				}
				return
			}
			require.Equal(t, []string{contracts.CheckDeploymentRelated}, d.FailedChecks, "%v", d.Checks)
			for _, s := range tc.contains {
				require.Contains(t, dep.Reason, s)
			}
		})
	}
}
