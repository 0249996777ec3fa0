package contracts_test

import (
	"testing"

	"agentk/contracts"

	"github.com/stretchr/testify/require"
)

// TestVersionKeys: service.version first; the fallbacks are the rest, in
// order, and only they are fallbacks.
func TestVersionKeys(t *testing.T) {
	require.Equal(t, contracts.ServiceVersionKey, contracts.VersionKeys[0])
	require.Equal(t, []string{"faas.version", "container.image.tag"}, contracts.FallbackVersionKeys())
	for key, want := range map[string]bool{"faas.version": true, "container.image.tag": true, "service.version": false, "": false, "k8s.pod.name": false} {
		require.Equal(t, want, contracts.IsFallbackVersionKey(key), key)
	}
}
