package deployer

import (
	"fmt"
	"time"

	"agentk/contracts/envelope"
	"agentk/platform/service"
	"agentk/services/deployer/internal/config"
	"agentk/services/deployer/internal/dryrun"
)

// The deployer registers itself with the platform: agentk config, agentk up's
// preflight and docs/configuration.md read its declarations from there.
// Every service's register.go has this shape on purpose: one registration
// each, the only place a service is listed.
func init() {
	service.Register(service.Registration{
		Role: envelope.RoleDeployer, Config: config.Spec, Run: Run,
		Check: check,
	})
}

// check is what `agentk config` and `agentk up`'s preflight ask: the
// variables as Run reads them, and the recorded incident folder a dry run
// is seeded from, loaded and validated as Run loads it (an incident.yaml
// whose id is not its folder's name used to pass here and stop `up`).
func check(getenv func(string) string) error {
	cfg, err := config.FromEnv(getenv)
	if err != nil {
		return err
	}
	if cfg.IncidentDir == "" {
		return nil
	}
	if _, err := dryrun.Load(cfg.IncidentDir, time.Now()); err != nil {
		return fmt.Errorf("%s: %w", config.EnvIncidentDir, err)
	}
	return nil
}
