package tools

import (
	"strconv"
	"strings"

	"agentk/contracts"
	"agentk/platform/mutant"
	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"
)

// nodeTraffic is the service's entry spans and errors since the onset per
// Kubernetes node and version (facts.NodeTraffic, resp), else, where no
// k8s.node.name names two nodes, per machine (facts.HostTraffic: hosts by
// version and bare, those that name no version); nil with one node.
func nodeTraffic(resp, hosts, bare signoz.Response, on Onset) ([]contracts.NodeTraffic, error) {
	if mutant.Off(mutant.SandboxNodeTraffic) {
		return nil, nil
	}
	ns, err := facts.NodeTraffic(resp, *on.At)
	if err != nil || ns != nil || mutant.Off(mutant.SandboxNodeHost) || hosts.Refused != "" || bare.Refused != "" {
		return ns, badResponse(err)
	}
	ns, err = facts.HostTraffic(hosts, bare, *on.At)
	return ns, badResponse(err)
}

// nodeLine says each node's entry spans and errors since the onset, for the
// model and the human.
func nodeLine(ns []contracts.NodeTraffic) string {
	parts := make([]string, 0, len(ns))
	for _, n := range ns {
		v := n.Version
		if v == "" {
			v = "no version"
		}
		parts = append(parts, n.Node+" "+v+" "+strconv.FormatInt(n.Errors, 10)+"/"+strconv.FormatInt(n.Requests, 10))
	}
	return "entry spans failed/served since the onset by node (k8s.node.name, else a machine's host.name) and version: " + strings.Join(parts, ", ")
}
