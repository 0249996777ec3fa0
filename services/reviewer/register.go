package reviewer

import (
	"agentk/contracts/envelope"
	"agentk/platform/service"
	"agentk/services/reviewer/internal/config"
)

// The reviewer registers itself with the platform: agentk config, agentk up's
// preflight and docs/configuration.md read its declarations from there.
// Every service's register.go has this shape on purpose: one registration
// each, the only place a service is listed.
func init() {
	service.Register(service.Registration{
		Role: envelope.RoleReviewer, Config: config.Spec, Run: Run,
		Check: service.Checker(config.FromEnv),
	})
}
