package plan

import (
	"encoding/json"
	"testing"

	"agentk/contracts"

	"github.com/stretchr/testify/require"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		steps []string
		min   int
		ok    bool
	}{
		{"shipped plan", Minimum, MinIterations, true},
		{"marker first", []string{contracts.ToolDeploymentMarkers, contracts.ToolErrorLogs}, 1, true},
		{"marker moved after the minimum", []string{contracts.ToolServiceOverview, contracts.ToolErrorTraces, contracts.ToolErrorLogs, contracts.ToolDeploymentMarkers}, 3, false},
		{"minimum shrunk below the marker", Minimum, 1, false},
		{"marker dropped", []string{contracts.ToolServiceOverview, contracts.ToolErrorLogs}, 2, false},
		{"empty plan", nil, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := Check(tc.steps, tc.min)
			if tc.ok {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrMarkerOutsideMinimum)
		})
	}
}

// TestInitAssertionFires proves that the check init runs panics on a reordered plan.
func TestInitAssertionFires(t *testing.T) {
	t.Parallel()
	reordered := []string{contracts.ToolServiceOverview, contracts.ToolErrorTraces, contracts.ToolErrorLogs, contracts.ToolDeploymentMarkers}
	require.Panics(t, func() { mustCheck(reordered, 3) })
	require.NotPanics(t, func() { mustCheck(Minimum, MinIterations) })
}

func TestStepsCoverTheMinimum(t *testing.T) {
	t.Parallel()
	steps := Steps("shop-api")
	require.Len(t, steps, MinIterations)
	for i, s := range steps {
		require.Equal(t, Minimum[i], s.Tool)
		var args contracts.ToolArgs
		require.NoError(t, json.Unmarshal(s.Arguments, &args))
		require.Equal(t, "shop-api", args.Service)
	}
}
