package config_test

import (
	"testing"

	"agentk/platform/telemetry"
	"agentk/services/sandbox/internal/config"

	"github.com/stretchr/testify/require"
)

// Lesson 4: the sandbox never investigates the pipeline's own telemetry. The
// names agentk exports under and the names the sandbox excludes by default
// are one list.
func TestDefaultExcludeIsWhatAgentkExportsUnder(t *testing.T) {
	t.Parallel()
	require.ElementsMatch(t, telemetry.ServiceNames(), config.DefaultExclude)
}
