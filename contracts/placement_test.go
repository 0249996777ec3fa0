package contracts_test

import (
	"testing"

	"agentk/contracts"

	"github.com/stretchr/testify/require"
)

func TestRegionShift(t *testing.T) {
	for _, tc := range []struct {
		name       string
		rt         []contracts.RegionTraffic
		lost, gain string
	}{
		{"a failover", []contracts.RegionTraffic{{Region: "eu-west-1", BaselinePerMin: 20, PerMin: 2}, {Region: "eu-central-1", BaselinePerMin: 20, PerMin: 37}}, "eu-west-1", "eu-central-1"},
		{"the other took too little of it over", []contracts.RegionTraffic{{Region: "a", BaselinePerMin: 20, PerMin: 2}, {Region: "b", BaselinePerMin: 20, PerMin: 29}}, "", ""},
		{"a region that kept more than half", []contracts.RegionTraffic{{Region: "a", BaselinePerMin: 20, PerMin: 11}, {Region: "b", BaselinePerMin: 20, PerMin: 40}}, "", ""},
		{"a region too quiet to judge", []contracts.RegionTraffic{{Region: "a", BaselinePerMin: 1.5, PerMin: 0}, {Region: "b", BaselinePerMin: 1, PerMin: 3}}, "", ""},
		{"one region", []contracts.RegionTraffic{{Region: "a", BaselinePerMin: 20, PerMin: 2}}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lost, gain, ok := contracts.RegionShift(tc.rt)
			require.Equal(t, tc.lost != "", ok)
			require.Equal(t, tc.lost, lost.Region)
			require.Equal(t, tc.gain, gain.Region)
		})
	}
}

func TestNodesConfined(t *testing.T) {
	node := func(n, v string, req, errs int64) contracts.NodeTraffic {
		return contracts.NodeTraffic{Node: n, Version: v, Requests: req, Errors: errs}
	}
	for _, tc := range []struct {
		name    string
		traffic []contracts.NodeTraffic
		version string
		nodes   []string
		served  int
	}{
		{"one node of five fails, the same version clean elsewhere", []contracts.NodeTraffic{node("w7", "6.3.1", 60, 30), node("w1", "6.3.1", 60, 0), node("w2", "6.3.1", 60, 1), node("w3", "6.3.1", 60, 0), node("w4", "6.3.1", 60, 0)}, "6.3.1", []string{"w7"}, 5},
		{"every node fails alike", []contracts.NodeTraffic{node("w1", "2", 60, 20), node("w2", "2", 60, 18), node("w3", "2", 60, 22)}, "2", nil, 3},
		{"the other nodes served too little to tell", []contracts.NodeTraffic{node("w1", "2", 60, 30), node("w2", "2", 10, 0)}, "2", nil, 2},
		{"too few errors", []contracts.NodeTraffic{node("w1", "2", 60, 4), node("w2", "2", 60, 0)}, "2", nil, 2},
		{"another version's nodes are not read", []contracts.NodeTraffic{node("w1", "2", 60, 30), node("w2", "1", 600, 0)}, "2", nil, 1},
		{"spans that name no version: every node", []contracts.NodeTraffic{node("w1", "", 60, 30), node("w2", "", 60, 0), node("w3", "", 60, 0)}, "", []string{"w1"}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, ok := contracts.NodesConfined(tc.traffic, tc.version)
			require.Equal(t, tc.nodes != nil, ok, "%+v", c)
			require.Equal(t, tc.served, c.Served)
			if ok {
				require.Equal(t, tc.nodes, c.Nodes)
			}
		})
	}
}
