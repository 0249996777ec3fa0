package deployer

import (
	"agentk/platform/service"
	"agentk/services/deployer/internal/config"
	"agentk/services/deployer/internal/recovery"
	"agentk/services/deployer/internal/rollback"
)

// recoveryChecker is the configured recovery check: the sandbox's
// service_overview (telemetry; the deployer never talks to SigNoz), the HTTP
// probe fallback for setups without SigNoz, or none.
func recoveryChecker(cfg config.Config, d service.Deps) rollback.RecoveryChecker {
	rule := recovery.Rule{MaxErrorRate: cfg.RecoveryMaxErrorRate, MinRequests: cfg.RecoveryMinRequests}
	switch cfg.Recovery {
	case config.RecoverySandbox:
		d.Logger.Info("recovery is checked through the sandbox's service_overview", "max_error_rate", rule.MaxErrorRate,
			"min_requests", rule.MinRequests, "stabilise", cfg.Stabilise)
		return recovery.Sandbox{Bus: d.Bus, Signer: d.Signer, Keyring: d.Keyring, Now: d.Now, Rule: rule, Timeout: cfg.RecoveryTimeout}
	case config.RecoveryProbe:
		d.Logger.Warn("recovery is checked by a direct HTTP probe of the service, not telemetry (fallback for setups without SigNoz)",
			"url", cfg.ProbeURL, "max_error_rate", rule.MaxErrorRate)
		return recovery.HTTPProbe{URL: cfg.ProbeURL, Requests: 50, MaxErrorRate: rule.MaxErrorRate}
	}
	d.Logger.Warn("no recovery check: rollbacks are verified on Docker only, recovery left to a human", "env", config.EnvRecovery)
	return nil
}
