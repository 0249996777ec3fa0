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

// NodeTraffic reads the entry spans per minute by node and service.version
// (resp: aggregation 0 every entry span, aggregation 1 the failed ones,
// grouped by NodeTrafficKey and service.version) and returns, per node and
// version, the spans and errors from the onset's minute on, when two nodes
// or more served since the onset; nil otherwise. Rows are in node, then
// version order. It returns ErrBadResponse when resp is not a time series.
func NodeTraffic(resp signoz.Response, onset time.Time) ([]contracts.NodeTraffic, error) {
	type count struct{ req, errs float64 }
	by := map[string]*count{}
	from := onset.Truncate(time.Minute)
	label := func(s signoz.Series) string {
		node := LabelOf(NodeTrafficKey)(s)
		if node == "" {
			return ""
		}
		return node + "\x00" + LabelOf("service.version")(s)
	}
	err := Samples(resp, label, func(g string, agg int, ts int64, n float64) {
		if time.UnixMilli(ts).Before(from) || agg > 1 {
			return
		}
		c := by[g]
		if c == nil {
			c = &count{}
			by[g] = c
		}
		if agg == 0 {
			c.req += n
		} else {
			c.errs += n
		}
	})
	if err != nil {
		return nil, err
	}
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
		return nil, nil
	}
	return out, nil
}
