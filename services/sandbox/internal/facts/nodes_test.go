package facts_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"agentk/contracts"
	"agentk/services/sandbox/internal/facts"
)

func TestNodeTraffic(t *testing.T) {
	t.Parallel()
	of := func(node, version string) map[string]any {
		return map[string]any{facts.NodeTrafficKey: node, "service.version": version}
	}
	n := func(v float64) func(int) float64 { return func(int) float64 { return v } }
	// Minutes 0..39, the onset at 30: w7 serves 6 a minute and fails 2 of
	// them since the onset, w1 serves 5 a minute and never fails; before
	// the onset both ran 1.0 (left out: only the onset's minute on counts).
	series := []ser{
		{labels: of("w7", "1.1"), values: minutes(30, 40, n(6))},
		{labels: of("w7", "1.1"), agg: 1, values: minutes(30, 40, n(2))},
		{labels: of("w1", "1.1"), values: minutes(30, 40, n(5))},
		{labels: of("w1", "1.0"), values: minutes(0, 30, n(5))},
		{labels: of("w7", "1.0"), agg: 1, values: minutes(0, 30, n(1))},
	}
	got, err := facts.NodeTraffic(response(t, series...), at(30).Add(20e9))
	require.NoError(t, err)
	require.Equal(t, []contracts.NodeTraffic{
		{Node: "w1", Version: "1.1", Requests: 50},
		{Node: "w7", Version: "1.1", Requests: 60, Errors: 20},
	}, got)

	// One node since the onset: nothing to compare.
	got, err = facts.NodeTraffic(response(t, series[:2]...), at(30))
	require.NoError(t, err)
	require.Nil(t, got)

	// Spans that name no node are left out; a version-less service keeps
	// its rows with Version "".
	bare := []ser{
		{labels: map[string]any{facts.NodeTrafficKey: "w1"}, values: minutes(30, 40, n(3))},
		{labels: map[string]any{facts.NodeTrafficKey: "w2"}, values: minutes(30, 40, n(4))},
		{labels: map[string]any{"service.version": "1.1"}, values: minutes(30, 40, n(9))},
	}
	got, err = facts.NodeTraffic(response(t, bare...), at(30))
	require.NoError(t, err)
	require.Equal(t, []contracts.NodeTraffic{{Node: "w1", Requests: 30}, {Node: "w2", Requests: 40}}, got)
}

// TestHostTraffic: a machine's host.name is its node; the spans that name
// no version come from their own series (bare) as rows with Version "".
func TestHostTraffic(t *testing.T) {
	t.Parallel()
	n := func(v float64) func(int) float64 { return func(int) float64 { return v } }
	host := func(h, version string) map[string]any {
		m := map[string]any{facts.HostTrafficKey: h}
		if version != "" {
			m["service.version"] = version
		}
		return m
	}
	versioned := response(t,
		ser{labels: host("vm-01", "2.16.1-1"), values: minutes(30, 40, n(5))},
		ser{labels: host("vm-02", "2.16.1-1"), values: minutes(30, 40, n(6))},
		ser{labels: host("vm-02", "2.16.1-1"), agg: 1, values: minutes(30, 40, n(3))},
	)
	bare := response(t,
		ser{labels: host("vm-03", ""), values: minutes(30, 40, n(2))},
		ser{labels: host("vm-03", ""), agg: 1, values: minutes(30, 40, n(1))},
	)
	got, err := facts.HostTraffic(versioned, bare, at(30))
	require.NoError(t, err)
	require.Equal(t, []contracts.NodeTraffic{
		{Node: "vm-01", Version: "2.16.1-1", Requests: 50},
		{Node: "vm-02", Version: "2.16.1-1", Requests: 60, Errors: 30},
		{Node: "vm-03", Requests: 20, Errors: 10},
	}, got)

	// One machine: nothing to compare.
	got, err = facts.HostTraffic(response(t, ser{labels: host("vm-01", "1"), values: minutes(30, 40, n(5))}), response(t), at(30))
	require.NoError(t, err)
	require.Nil(t, got)
}
