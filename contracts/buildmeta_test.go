package contracts_test

import (
	"testing"

	"agentk/contracts"

	"github.com/stretchr/testify/require"
)

func TestBuildMetadataOnly(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		prev, next, core string
		ok               bool
	}{
		{"5.2.4+cfg.37", "5.2.4+cfg.38", "5.2.4", true},
		{"4.11.0", "4.11.0+cfg.2", "4.11.0", true},
		{"5.2.4_cfg.37", "5.2.4_cfg.38", "5.2.4", true},
		{"2026.11.28.1+cfg.56", "2026.11.28.1+cfg.57", "2026.11.28.1", true},
		{"5.2.4+cfg.37", "5.3.0+cfg.38", "5.2.4", false},
		{"v1", "v2", "v1", false},
		{"5.2.4+cfg.1", "5.2.4+cfg.1", "5.2.4", false},
		{"+a", "+b", "", false},
	} {
		core, ok := contracts.BuildMetadataOnly(tc.prev, tc.next)
		require.Equal(t, tc.ok, ok, "%s -> %s", tc.prev, tc.next)
		require.Equal(t, tc.core, core)
	}
}
