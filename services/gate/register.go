package gate

import (
	"agentk/contracts/envelope"
	"agentk/platform/service"
	"agentk/services/gate/internal/config"
)

// The gate registers itself with the platform: agentk config, agentk up's
// preflight and docs/configuration.md read its declarations from there.
// Every service's register.go has this shape on purpose: one registration
// each, the only place a service is listed.
func init() {
	service.Register(service.Registration{
		Role: envelope.RoleGate, Config: config.Spec, Run: Run,
		Check: service.Checker(config.FromEnv),
	})
}
