package policy_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"agentk/contracts"
	"agentk/services/gate/internal/policy"
)

// A configuration release is exempt from the failing-dependency check
// because a configuration can break the calls to a dependency; it cannot
// when the running version called the peer at its usual error rate, often
// enough, after the ledger's start of that version and before the peer
// began failing (lm7-trap-expired-token-search-api: a partner token that
// expired two minutes after a code release; persona:quality's
// config_regression was rolled back). Mutant gate.config_clean_calls.
func TestConfigReleaseCalledThePeerCleanly(t *testing.T) {
	const peer = "api.partner.example"
	at := func(hhmm string) time.Time {
		p, err := time.Parse("15:04", hhmm)
		require.NoError(t, err)
		return time.Date(2026, 11, 30, p.Hour(), p.Minute(), 0, 0, time.UTC)
	}
	min := func(hhmm string, calls, errs float64) contracts.PeerCallMinute {
		return contracts.PeerCallMinute{At: at(hhmm), Calls: calls, Errors: errs}
	}
	// The fixture's ledger started v2 at 10:02:00; the service's onset is 10:05.
	for _, tc := range []struct {
		name     string
		class    string
		onset    string
		base     [2]float64
		minutes  []contracts.PeerCallMinute
		failing  []string
		allow    bool
		contains []string
	}{
		{"two clean minutes after the start", "config_regression", "10:05", [2]float64{300, 0},
			[]contracts.PeerCallMinute{min("10:02", 12, 0), min("10:03", 11, 0)}, []string{peer}, false,
			[]string{peer, "23 calls, 0 failed", "2 whole minutes from 2026-11-30T10:02:00Z to 2026-11-30T10:04:00Z", "began failing at 2026-11-30T10:05:00Z", `started (the ledger: 2026-11-30T10:02:00Z)`}},
		{"at the peer's usual error rate", "config_regression", "10:05", [2]float64{100, 10},
			[]contracts.PeerCallMinute{min("10:03", 20, 3)}, []string{peer}, false, []string{"20 calls, 3 failed (baseline 10%)"}},
		{"the configuration broke the calls from its first", "config_regression", "10:05", [2]float64{300, 0},
			[]contracts.PeerCallMinute{min("10:02", 12, 12), min("10:03", 11, 11)}, []string{peer}, true, nil},
		{"clean calls only before the ledger's start", "config_regression", "10:05", [2]float64{300, 0},
			[]contracts.PeerCallMinute{min("10:00", 30, 0), min("10:01", 30, 0)}, []string{peer}, true, nil},
		{"too few clean calls", "config_regression", "10:05", [2]float64{300, 0},
			[]contracts.PeerCallMinute{min("10:02", 5, 0), min("10:03", 4, 0)}, []string{peer}, true, nil},
		{"a minute that ends after the peer's onset", "config_regression", "10:03", [2]float64{300, 0},
			[]contracts.PeerCallMinute{min("10:02", 5, 0), min("10:03", 20, 0)}, []string{peer}, true, nil},
		{"clean calls only in minutes the old version still served", "config_regression", "10:05", [2]float64{300, 0},
			[]contracts.PeerCallMinute{{At: at("10:02"), Calls: 12, OtherVersions: 3}, {At: at("10:03"), Calls: 11, OtherVersions: 1}}, []string{peer}, true, nil},
		{"a peer that is no failing dependency", "config_regression", "10:05", [2]float64{300, 0},
			[]contracts.PeerCallMinute{min("10:02", 12, 0), min("10:03", 11, 0)}, nil, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := allowing()
			in.Review.Best.Class, in.Review.Kept[0].Class = tc.class, tc.class
			in.Evidence[0].Facts.FailingDependencies = tc.failing
			in.Evidence[0].Facts.CallsSinceRelease = []contracts.CallsSinceRelease{{
				Peer: peer, Onset: at(tc.onset), BaselineCalls: tc.base[0], BaselineErrors: tc.base[1], Minutes: tc.minutes,
			}}
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
			require.Contains(t, dep.Reason, "not a configuration release of")
		})
	}
}
