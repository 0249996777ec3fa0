package policy_test

import (
	"testing"
	"time"

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

// TestChangeReleaseSlowPeerAnsweredIt: a prompt or configuration release
// does not explain a dependency that answered the running version's calls
// at its baseline latency in whole minutes after the ledger's start (v2 at
// 10:02), with no other version serving, and slowed at the onset (10:05):
// what the release asks of it did not change (mutant
// gate.change_slow_answered; heldout13's OpenSearch twin). Calls before the
// ledger's start, in minutes the old version still served, fewer than
// MinAcceptedCalls, or a minute that ends after the onset leave the claim
// standing.
func TestChangeReleaseSlowPeerAnsweredIt(t *testing.T) {
	const peer = "opensearch.example"
	at := func(m int) time.Time { return time.Date(2026, 11, 30, 10, m, 0, 0, time.UTC) }
	min := func(m int, calls, others float64) contracts.PeerCallMinute {
		return contracts.PeerCallMinute{At: at(m), Calls: calls, OtherVersions: others}
	}
	for _, tc := range []struct {
		name    string
		class   string
		minutes []contracts.PeerCallMinute
		allow   bool
	}{
		{"two answered minutes before the onset (config)", "config_regression", []contracts.PeerCallMinute{min(2, 0, 0), min(3, 30, 0), min(4, 28, 0)}, false},
		{"two answered minutes before the onset (prompt)", "prompt_regression", []contracts.PeerCallMinute{min(3, 30, 0), min(4, 28, 0)}, false},
		{"the slowing began with the release", "config_regression", nil, true},
		{"answered only before the ledger's start", "config_regression", []contracts.PeerCallMinute{min(0, 30, 0), min(1, 30, 0)}, true},
		{"answered only while the old version still served", "config_regression", []contracts.PeerCallMinute{min(3, 30, 4), min(4, 28, 1)}, true},
		{"too few answered calls", "config_regression", []contracts.PeerCallMinute{min(3, 2, 0), min(4, 2, 0)}, true},
		{"a minute that ends after the onset", "config_regression", []contracts.PeerCallMinute{min(5, 30, 0)}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := allowing()
			in.Review.Best.Class, in.Review.Kept[0].Class = tc.class, tc.class
			in.Evidence[0].Facts.SlowDependencies = []string{peer}
			if tc.minutes != nil {
				in.Evidence[0].Facts.CallsBeforeSlowing = []contracts.CallsSinceRelease{{Peer: peer, FailureStart: at(5), Minutes: tc.minutes}}
			}
			d := policy.Evaluate(in)
			dep := d.Checks[4]
			require.Equal(t, contracts.CheckDeploymentRelated, dep.Name)
			if tc.allow {
				require.Equal(t, contracts.VerdictAllow, d.Verdict, "%v", d.Checks)
				return
			}
			require.Equal(t, []string{contracts.CheckDeploymentRelated}, d.FailedChecks)
			require.Contains(t, dep.Reason, "answered 58 calls of \"v2\" in 2 whole minute(s) from 2026-11-30T10:03:00Z to 2026-11-30T10:05:00Z")
			require.Contains(t, dep.Reason, "a slow dependency, not a "+tc.class)
			require.Contains(t, dep.Inputs, "answered_before_slowing."+peer)
		})
	}
}

// TestChangeReleaseSlowPeerSentMore: change_slow_answered's denial is
// lifted when the running version's calls to the slowed peer asked it for
// more, beyond chance, from their first (contracts.Facts.SentChanges), and
// only then: a larger ask of another peer (mutant
// gate.change_slow_sent_peer), a smaller one or one within chance leave
// it denied.
func TestChangeReleaseSlowPeerSentMore(t *testing.T) {
	const peer, other = "api.openai.com", "qdrant.internal"
	at := func(m int) time.Time { return time.Date(2026, 11, 30, 10, m, 0, 0, time.UTC) }
	sent := func(p string, before, after, z float64) contracts.SentChange {
		return contracts.SentChange{Peer: p, Attribute: "gen_ai.usage.input_tokens", BeforeCalls: 40, BeforeMedian: before, AfterCalls: 12, AfterMedian: after, Z: z}
	}
	for _, tc := range []struct {
		name  string
		sent  []contracts.SentChange
		allow bool
	}{
		{"the slowed peer asked more", []contracts.SentChange{sent(peer, 1200, 2900, 4.8)}, true},
		{"no larger ask", nil, false},
		{"another peer asked more", []contracts.SentChange{sent(other, 1200, 2900, 4.8)}, false},
		{"a smaller ask", []contracts.SentChange{sent(peer, 2900, 1200, 4.8)}, false},
		{"within chance", []contracts.SentChange{sent(peer, 1200, 2900, 2.5)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := allowing()
			in.Review.Best.Class, in.Review.Kept[0].Class = "prompt_regression", "prompt_regression"
			in.Evidence[0].Facts.SlowDependencies = []string{peer}
			in.Evidence[0].Facts.CallsBeforeSlowing = []contracts.CallsSinceRelease{{Peer: peer, FailureStart: at(5),
				Minutes: []contracts.PeerCallMinute{{At: at(3), Calls: 4}, {At: at(4), Calls: 4}}}}
			in.Evidence[0].Facts.SentChanges = tc.sent
			d := policy.Evaluate(in)
			if tc.allow {
				require.Equal(t, contracts.VerdictAllow, d.Verdict, "%v", d.Checks)
				require.Contains(t, d.Checks[4].Inputs["sent_more."+peer], "gen_ai.usage.input_tokens median 1200 -> 2900")
				return
			}
			require.Equal(t, []string{contracts.CheckDeploymentRelated}, d.FailedChecks)
			require.Contains(t, d.Checks[4].Reason, "asked no more than before")
		})
	}
}
