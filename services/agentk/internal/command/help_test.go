package command

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestVersionInfo(t *testing.T) {
	t.Parallel()
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "agentk/cmd/agentk", Version: "(devel)"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.time", Value: "2026-12-01T20:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	require.Equal(t, "agentk devel 0123456789ab (modified) 2026-12-01T20:00:00Z go1.26.8", versionInfo(bi, true))
	require.Equal(t, "agentk devel", versionInfo(nil, false))

}
