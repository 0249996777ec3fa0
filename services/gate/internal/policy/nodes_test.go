package policy_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"agentk/contracts"
	"agentk/services/gate/internal/policy"
)

// TestNodeConfinedDenies: a deployment-class diagnosis is denied when the
// running version's errors since the onset are confined to a few nodes
// while the same version serves cleanly on the others (a noisy neighbour:
// e2e/incidents-heldout10's noisy-node trap). Red with gate.node_confined.
func TestNodeConfinedDenies(t *testing.T) {
	nt := func(node, version string, req, errs int64) contracts.NodeTraffic {
		return contracts.NodeTraffic{Node: node, Version: version, Requests: req, Errors: errs}
	}
	noisy := []contracts.NodeTraffic{nt("w1", "v2", 51, 0), nt("w3", "v2", 53, 0), nt("w4", "v2", 50, 1), nt("w6", "v2", 69, 0),
		nt("w7", "v2", 147, 47), nt("w8", "v2", 47, 0)}
	for _, tc := range []struct {
		name  string
		class string
		nodes []contracts.NodeTraffic
		allow bool
	}{
		{"one starved node of six", "bad_release", noisy, false},
		{"on a configuration release", "config_regression", noisy, false},
		{"two starved nodes of five", "retry_storm", []contracts.NodeTraffic{nt("a", "v2", 40, 12), nt("b", "v2", 40, 10), nt("c", "v2", 60, 0), nt("d", "v2", 60, 1), nt("e", "v2", 60, 0)}, false},
		{"a service that names no version", "bad_release", []contracts.NodeTraffic{nt("a", "", 60, 30), nt("b", "", 60, 0), nt("c", "", 60, 0)}, false},
		{"the old version's nodes are not the running version's", "bad_release", []contracts.NodeTraffic{nt("a", "v2", 60, 30), nt("b", "v1", 300, 0), nt("c", "v1", 300, 0)}, true},
		{"errors on every node", "bad_release", []contracts.NodeTraffic{nt("a", "v2", 60, 12), nt("b", "v2", 60, 10), nt("c", "v2", 60, 14)}, true},
		{"the failing nodes served most requests", "bad_release", []contracts.NodeTraffic{nt("a", "v2", 200, 40), nt("b", "v2", 60, 0)}, true},
		{"too few errors to place", "bad_release", []contracts.NodeTraffic{nt("a", "v2", 60, 4), nt("b", "v2", 60, 0), nt("c", "v2", 60, 0)}, true},
		{"the other nodes too thin to say", "bad_release", []contracts.NodeTraffic{nt("a", "v2", 100, 10), nt("b", "v2", 30, 0), nt("c", "v2", 30, 0)}, true},
		{"the other nodes fail too, less", "bad_release", []contracts.NodeTraffic{nt("a", "v2", 50, 25), nt("b", "v2", 60, 6), nt("c", "v2", 60, 6)}, true},
		{"one node", "bad_release", []contracts.NodeTraffic{nt("a", "v2", 60, 30)}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := allowing()
			in.Review.Best.Class, in.Review.Kept[0].Class = tc.class, tc.class
			in.Evidence[0].Facts.NodeTraffic = tc.nodes
			d := policy.Evaluate(in)
			dep := d.Checks[4]
			require.Equal(t, contracts.CheckDeploymentRelated, dep.Name)
			if tc.allow {
				require.Equal(t, contracts.VerdictAllow, d.Verdict, "%v", d.Checks)
				return
			}
			require.Equal(t, []string{contracts.CheckDeploymentRelated}, d.FailedChecks, "%v", d.Checks)
			require.Contains(t, dep.Reason, "a node's fault (a noisy neighbour, a failing host), which a rollback would not fix")
		})
	}
	in := allowing()
	in.Evidence[0].Facts.NodeTraffic = noisy
	require.Contains(t, policy.Evaluate(in).Checks[4].Reason, "confined to w7 (k8s.node.name, else a machine's host.name): 47 of 147 requests failed there, 1 of 270 on its 5 other nodes")
}
