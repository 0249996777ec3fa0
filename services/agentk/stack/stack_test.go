package stack

import (
	"testing"

	"agentk/contracts/envelope"
	"agentk/platform/service"

	"github.com/stretchr/testify/require"
)

// TestServicesInStartOrder pins the order derived from the registry to the
// hand-written start-order list it replaced: consumers before producers.
func TestServicesInStartOrder(t *testing.T) {
	var roles []string
	for _, r := range Services() {
		roles = append(roles, r.Role)
	}
	require.Equal(t, []string{
		envelope.RoleDeployer, envelope.RoleBridge, envelope.RoleGate, envelope.RoleReviewer,
		envelope.RoleSandbox, envelope.RoleInvestigator, envelope.RoleIngester,
	}, roles)
	require.Equal(t, roles, service.Roles(), "the registry's roles, in the same order")
}
