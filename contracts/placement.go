package contracts

import (
	"slices"
	"strings"
)

// Where a service's requests were served since the onset: the readings of
// Facts.RegionTraffic and Facts.NodeTraffic that the gate denies on and the
// rules investigator diagnoses on, written once for both.

// Region shift thresholds (RegionShift).
const (
	// RegionLostRatio is the most a region may keep of its baseline
	// requests a minute since the onset to have lost its traffic.
	RegionLostRatio = 0.5
	// RegionGainRatio is the least rise over its baseline of the region
	// that took the traffic over.
	RegionGainRatio = 1.5
	// MinRegionPerMin is the least entry spans a minute the region that
	// lost its traffic must have served in the baseline.
	MinRegionPerMin = 2.0
)

// RegionShift returns a region of rt that kept at most RegionLostRatio of
// its baseline requests a minute (at least MinRegionPerMin) and another
// that rose RegionGainRatio or more over its own and took over at least
// half of what the first lost: a region failing over. ok is false when no
// pair does.
func RegionShift(rt []RegionTraffic) (lost, gain RegionTraffic, ok bool) {
	for _, l := range rt {
		if l.BaselinePerMin < MinRegionPerMin || l.PerMin > RegionLostRatio*l.BaselinePerMin {
			continue
		}
		for _, g := range rt {
			if g.Region != l.Region && g.BaselinePerMin > 0 && g.PerMin >= RegionGainRatio*g.BaselinePerMin &&
				g.PerMin-g.BaselinePerMin >= 0.5*(l.BaselinePerMin-l.PerMin) {
				return l, g, true
			}
		}
	}
	return RegionTraffic{}, RegionTraffic{}, false
}

// Node confinement thresholds (NodesConfined).
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

// NodeConfinement is what NodesConfined found: the failing nodes, by
// name, and the requests and errors there (Hot) and on the version's other
// nodes (Clean).
type NodeConfinement struct {
	Nodes      []string
	Hot, Clean NodeTraffic
	// Served is how many nodes served the version since the onset, whether
	// or not its errors are confined.
	Served int
}

// NodesConfined reads traffic (Facts.NodeTraffic) for version (every
// span's when no entry names a version): ok when its errors are confined
// to a few nodes, the nodes with the highest error rates holding
// NodeErrorShare of them (at least MinNodeErrors) while serving at most
// NodeServedShare of its requests, and its other nodes served enough
// requests to have shown MinCleanExpected errors at that rate yet failed at
// most CleanRateRatio of it. The same version serving cleanly elsewhere
// cannot be what fails: a node starved by a neighbour, a failing host.
func NodesConfined(traffic []NodeTraffic, version string) (NodeConfinement, bool) {
	versioned := slices.ContainsFunc(traffic, func(n NodeTraffic) bool { return n.Version != "" })
	at := map[string]int{}
	var nodes []NodeTraffic
	var total NodeTraffic
	for _, n := range traffic {
		if n.Requests <= 0 || versioned && n.Version != version {
			continue
		}
		i, seen := at[n.Node]
		if !seen {
			i, at[n.Node] = len(nodes), len(nodes)
			nodes = append(nodes, NodeTraffic{Node: n.Node, Version: n.Version})
		}
		nodes[i].Requests, nodes[i].Errors = nodes[i].Requests+n.Requests, nodes[i].Errors+n.Errors
		total.Requests, total.Errors = total.Requests+n.Requests, total.Errors+n.Errors
	}
	c := NodeConfinement{Served: len(nodes)}
	if len(nodes) < 2 || total.Errors < MinNodeErrors {
		return c, false
	}
	rate := func(n NodeTraffic) float64 { return float64(n.Errors) / float64(n.Requests) }
	slices.SortStableFunc(nodes, func(a, b NodeTraffic) int {
		switch ra, rb := rate(a), rate(b); {
		case ra > rb:
			return -1
		case ra < rb:
			return 1
		}
		return strings.Compare(a.Node, b.Node)
	})
	for _, n := range nodes {
		if float64(c.Hot.Errors) >= NodeErrorShare*float64(total.Errors) {
			break
		}
		c.Hot.Requests, c.Hot.Errors = c.Hot.Requests+n.Requests, c.Hot.Errors+n.Errors
		c.Nodes = append(c.Nodes, n.Node)
	}
	c.Clean = NodeTraffic{Requests: total.Requests - c.Hot.Requests, Errors: total.Errors - c.Hot.Errors}
	expected := float64(c.Clean.Requests) * rate(c.Hot)
	ok := float64(c.Hot.Requests) <= NodeServedShare*float64(total.Requests) && expected >= MinCleanExpected && float64(c.Clean.Errors) <= CleanRateRatio*expected
	return c, ok
}
