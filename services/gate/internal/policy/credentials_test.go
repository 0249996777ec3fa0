package policy_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"agentk/contracts"
	"agentk/services/gate/internal/policy"
)

// A configuration release is exempt from the failing-dependency check
// because a configuration can break the calls to a dependency; it is not
// when the dependency refuses the credential only after accepting the
// running version's calls after its release (lm7-trap-expired-token-search-api: a partner token that expired two
// minutes after a code release; persona:quality's config_regression was
// rolled back). Mutant gate.config_accepted_credential.
func TestConfigReleaseCredentialWasAccepted(t *testing.T) {
	const peer = "api.partner.example"
	at := func(hhmm string) time.Time {
		p, err := time.Parse("15:04", hhmm)
		require.NoError(t, err)
		return time.Date(2026, 11, 30, p.Hour(), p.Minute(), 0, 0, time.UTC)
	}
	min := func(hhmm string, calls float64) contracts.PeerCallMinute {
		return contracts.PeerCallMinute{At: at(hhmm), Calls: calls}
	}
	// The fixture's ledger started v2 at 10:02:00.
	for _, tc := range []struct {
		name     string
		class    string
		start    string
		minutes  []contracts.PeerCallMinute
		refused  []string
		failing  []string
		allow    bool
		contains []string
	}{
		{"two accepted minutes after the start", "config_regression", "10:05",
			[]contracts.PeerCallMinute{min("10:02", 4), min("10:03", 3)}, []string{peer}, []string{peer}, false,
			[]string{peer, "7 calls, none failed", "2 whole minute(s) from 2026-11-30T10:02:00Z to 2026-11-30T10:04:00Z", "from 2026-11-30T10:05:00Z, 3m0s after the release", `started (the ledger: 2026-11-30T10:02:00Z)`}},
		{"refusals nine minutes after the start", "config_regression", "10:11",
			[]contracts.PeerCallMinute{min("10:09", 5)}, []string{peer}, []string{peer}, false, []string{"9m0s after the release"}},
		{"refusals long after the release", "config_regression", "11:40",
			[]contracts.PeerCallMinute{min("11:38", 30)}, []string{peer}, []string{peer}, false, []string{"1h38m0s after the release"}},
		{"refusals before the ledger's start", "config_regression", "10:01",
			[]contracts.PeerCallMinute{min("10:00", 30)}, []string{peer}, []string{peer}, true, nil},
		{"a peer that fails otherwise than refusing the credential", "config_regression", "10:05",
			[]contracts.PeerCallMinute{min("10:02", 12), min("10:03", 11)}, nil, []string{peer}, true, nil},
		{"accepted only before the ledger's start", "config_regression", "10:05",
			[]contracts.PeerCallMinute{min("10:00", 30), min("10:01", 30)}, []string{peer}, []string{peer}, true, nil},
		{"too few accepted calls", "config_regression", "10:05",
			[]contracts.PeerCallMinute{min("10:02", 2), min("10:03", 2)}, []string{peer}, []string{peer}, true, nil},
		{"a minute that ends after the failure start", "config_regression", "10:03",
			[]contracts.PeerCallMinute{min("10:02", 2), min("10:03", 20)}, []string{peer}, []string{peer}, true, nil},
		{"accepted only in minutes the old version still served", "config_regression", "10:05",
			[]contracts.PeerCallMinute{{At: at("10:02"), Calls: 12, OtherVersions: 3}, {At: at("10:03"), Calls: 11, OtherVersions: 1}}, []string{peer}, []string{peer}, true, nil},
		{"a peer that is no failing dependency", "config_regression", "10:05",
			[]contracts.PeerCallMinute{min("10:02", 12), min("10:03", 11)}, []string{peer}, nil, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := allowing()
			in.Review.Best.Class, in.Review.Kept[0].Class = tc.class, tc.class
			in.Evidence[0].Facts.FailingDependencies = tc.failing
			in.Evidence[0].Facts.AuthRefusedDependencies = tc.refused
			in.Evidence[0].Facts.CallsSinceRelease = []contracts.CallsSinceRelease{{Peer: peer, FailureStart: at(tc.start), Minutes: tc.minutes}}
			d := policy.Evaluate(in)
			dep := d.Checks[4]
			require.Equal(t, contracts.CheckDeploymentRelated, dep.Name)
			if tc.allow {
				require.Equal(t, contracts.VerdictAllow, d.Verdict, "%v", d.Checks)
				return
			}
			require.Equal(t, []string{contracts.CheckDeploymentRelated}, d.FailedChecks)
			for _, s := range tc.contains {
				require.Contains(t, dep.Reason, s)
			}
			require.Contains(t, dep.Reason, "cannot be told from a configuration release of")
		})
	}
}
