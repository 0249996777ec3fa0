package contracts_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"agentk/contracts"

	"github.com/stretchr/testify/require"
)

// TestToolSpecsAreCurrent pins the tool catalogue the investigator shows the
// model and the sandbox validates against (testdata/tools.json).
func TestToolSpecsAreCurrent(t *testing.T) {
	b, err := json.MarshalIndent(contracts.ToolSpecs(), "", "  ")
	require.NoError(t, err)
	writeOrCompare(t, filepath.Join("testdata", "tools.json"), append(b, '\n'), "tool catalogue")
	names := map[string]bool{}
	for _, s := range contracts.ToolSpecs() {
		require.False(t, names[s.Name], "tool %s declared twice", s.Name)
		names[s.Name] = true
		require.Equal(t, "object", s.Parameters["type"], s.Name)
		require.Equal(t, false, s.Parameters["additionalProperties"], s.Name)
	}
	require.True(t, names[contracts.ToolListFields])
}
