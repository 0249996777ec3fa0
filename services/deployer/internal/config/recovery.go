package config

import "agentk/platform/config"

// Recovery check variables.
const (
	// EnvRecovery picks the recovery check: sandbox (default), probe or none.
	EnvRecovery             = "AGENTK_DEPLOYER_RECOVERY"
	EnvRecoveryMaxErrorRate = "AGENTK_DEPLOYER_RECOVERY_MAX_ERROR_RATE"
	EnvRecoveryMinRequests  = "AGENTK_DEPLOYER_RECOVERY_MIN_REQUESTS"
	EnvRecoveryTimeout      = "AGENTK_DEPLOYER_RECOVERY_TIMEOUT"
)

// recovery reads the recovery check's settings.
func (c *Config) recovery(v *config.Values) {
	c.Recovery = v.String(EnvRecovery)
	c.RecoveryTimeout = v.Duration(EnvRecoveryTimeout)
	c.RecoveryMaxErrorRate = v.Float(EnvRecoveryMaxErrorRate)
	c.RecoveryMinRequests = int64(v.Int(EnvRecoveryMinRequests))
	if v.IsSet(EnvProbeMaxErrors) {
		v.Failf(EnvProbeMaxErrors, "replaced by %s, which the sandbox check and the probe share", EnvRecoveryMaxErrorRate)
	}
	switch c.Recovery {
	case RecoverySandbox, RecoveryNone:
		if c.ProbeURL != "" {
			v.Failf(EnvProbeURL, "only with %s=%s (the HTTP probe fallback for setups without SigNoz)", EnvRecovery, RecoveryProbe)
		}
	case RecoveryProbe:
		if c.ProbeURL == "" {
			v.Failf(EnvProbeURL, "required with %s=%s", EnvRecovery, RecoveryProbe)
		}
	}
}
