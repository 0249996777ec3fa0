package policy

import (
	"slices"
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
const (
	// MinNodeErrors is the least failed entry spans of the running version
	// since the onset to judge where they failed.
	MinNodeErrors = 5
	// NodeErrorShare is the share of those errors the failing nodes hold.
	NodeErrorShare = 0.8
	// NodeServedShare is the most of the running version's requests the
	// failing nodes may have served: the failure is confined to a part of
	// the fleet.
	NodeServedShare = 0.5
	// MinCleanExpected is the least errors the other nodes would have shown
	// at the failing nodes' error rate: enough requests that their few
	// errors are no chance.
	MinCleanExpected = 8.0
	// CleanRateRatio is the most the other nodes' error rate may be of the
	// failing nodes'.
	CleanRateRatio = 0.2
)

type nodeCount struct {
	node      string
	req, errs int64
}

func (n nodeCount) rate() float64 { return float64(n.errs) / float64(n.req) }

// runningNodes are the entry spans and errors since the onset per node of
// the ledger's running version (contracts.Facts.NodeTraffic), or, when no
// span of the service names a version, of every span; nil with fewer than
// two nodes.
func runningNodes(in Input, svc string, ev []contracts.EvidenceV1) []nodeCount {
	cur, ok := runningRelease(in.Ledger)
	if !ok {
		return nil
	}
	for _, e := range ev {
		if e.Service != svc || len(e.Facts.NodeTraffic) < 2 {
			continue
		}
		versioned := slices.ContainsFunc(e.Facts.NodeTraffic, func(n contracts.NodeTraffic) bool { return n.Version != "" })
		at := map[string]int{}
		var out []nodeCount
		for _, n := range e.Facts.NodeTraffic {
			if n.Requests <= 0 || (versioned && n.Version != cur.Version) {
				continue
			}
			i, seen := at[n.Node]
			if !seen {
				i, at[n.Node] = len(out), len(out)
				out = append(out, nodeCount{node: n.Node})
			}
			out[i].req, out[i].errs = out[i].req+n.Requests, out[i].errs+n.Errors
		}
		if len(out) >= 2 {
			return out
		}
	}
	return nil
}

// nodeConfinedReasons denies a deployment-class diagnosis when, since the
// onset, the running version's errors are confined to a few nodes: the
// nodes with the highest error rates hold NodeErrorShare of its errors (at
// least MinNodeErrors) while serving at most NodeServedShare of its
// requests, and its other nodes served enough requests to have shown
// MinCleanExpected errors at that rate yet failed at most CleanRateRatio of
// it. The same version serving cleanly elsewhere cannot be what fails.
func nodeConfinedReasons(in Input, svc string, ev []contracts.EvidenceV1, inputs map[string]string) []string {
	if in.Review.Best == nil || mutant.Off(mutant.GateNodeConfined) {
		return nil
	}
	if _, dep := deploymentClass(in.Config.Catalogue, in.Review.Best.Class); !dep {
		return nil
	}
	nodes := runningNodes(in, svc, ev)
	var total nodeCount
	for _, n := range nodes {
		total.req, total.errs = total.req+n.req, total.errs+n.errs
	}
	if total.errs < MinNodeErrors {
		return nil
	}
	slices.SortStableFunc(nodes, func(a, b nodeCount) int {
		switch ra, rb := a.rate(), b.rate(); {
		case ra > rb:
			return -1
		case ra < rb:
			return 1
		}
		return strings.Compare(a.node, b.node)
	})
	var hot nodeCount
	var names []string
	for _, n := range nodes {
		if float64(hot.errs) >= NodeErrorShare*float64(total.errs) {
			break
		}
		hot.req, hot.errs = hot.req+n.req, hot.errs+n.errs
		names = append(names, n.node)
	}
	clean := nodeCount{req: total.req - hot.req, errs: total.errs - hot.errs}
	expected := float64(clean.req) * hot.rate()
	if float64(hot.req) > NodeServedShare*float64(total.req) || expected < MinCleanExpected || float64(clean.errs) > CleanRateRatio*expected {
		return nil
	}
	inputs["node_confined"] = strings.Join(names, ",")
	return []string{"the errors of " + svc + " since the onset are confined to " + strings.Join(names, ", ") + " (k8s.node.name): " +
		strconv.FormatInt(hot.errs, 10) + " of " + strconv.FormatInt(hot.req, 10) + " requests failed there, " + strconv.FormatInt(clean.errs, 10) + " of " +
		strconv.FormatInt(clean.req, 10) + " on its " + strconv.Itoa(len(nodes)-len(names)) + " other nodes, the same version: a node's fault (a noisy neighbour, a failing host), which a rollback would not fix"}
}
