package facts_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"agentk/contracts"
	"agentk/services/sandbox/internal/facts"
)

func TestRegionTraffic(t *testing.T) {
	t.Parallel()
	region := func(r string) map[string]any { return map[string]any{facts.RegionTrafficKey: r} }
	// Baseline minutes 0..29, the onset at 30, data to minute 39: west
	// serves 6 a minute and then nothing, central 4 and then 10.
	west := ser{labels: region("eu-west-1"), values: minutes(0, 30, func(int) float64 { return 6 })}
	central := ser{labels: region("eu-central-1"), values: minutes(0, 40, func(i int) float64 {
		if i < 30 {
			return 4
		}
		return 10
	})}
	got, err := facts.RegionTraffic(response(t, west, central), at(0), at(30))
	require.NoError(t, err)
	require.Equal(t, []contracts.RegionTraffic{
		{Region: "eu-central-1", BaselinePerMin: 4, PerMin: 10, Ratio: 2.5},
		{Region: "eu-west-1", BaselinePerMin: 6, PerMin: 0, Ratio: 0},
	}, got)

	// One region: nothing to compare.
	got, err = facts.RegionTraffic(response(t, central), at(0), at(30))
	require.NoError(t, err)
	require.Nil(t, got)

	// A region new since the onset has no baseline: left out, and with
	// one region left, nil.
	fresh := ser{labels: region("eu-north-1"), values: minutes(30, 40, func(int) float64 { return 3 })}
	got, err = facts.RegionTraffic(response(t, central, fresh), at(0), at(30))
	require.NoError(t, err)
	require.Nil(t, got)

	// Spans that name no region are left out.
	none := ser{labels: map[string]any{}, values: minutes(0, 40, func(int) float64 { return 9 })}
	got, err = facts.RegionTraffic(response(t, west, central, none), at(0), at(30))
	require.NoError(t, err)
	require.Len(t, got, 2)
}
