package config

import (
	"strconv"
	"strings"
	"time"
)

// Recovery check variables.
const (
	// EnvRecovery picks the recovery check: sandbox (default), probe or none.
	EnvRecovery             = "AGENTK_DEPLOYER_RECOVERY"
	EnvRecoveryMaxErrorRate = "AGENTK_DEPLOYER_RECOVERY_MAX_ERROR_RATE"
	EnvRecoveryMinRequests  = "AGENTK_DEPLOYER_RECOVERY_MIN_REQUESTS"
	EnvRecoveryTimeout      = "AGENTK_DEPLOYER_RECOVERY_TIMEOUT"
)

// recovery reads the recovery check's settings.
func (c *Config) recovery(getenv func(string) string, bad func(k, format string, a ...any), dur func(string, time.Duration) time.Duration) {
	c.Recovery = strings.TrimSpace(getenv(EnvRecovery))
	if c.Recovery == "" {
		c.Recovery = RecoverySandbox
	}
	c.RecoveryTimeout = dur(EnvRecoveryTimeout, time.Minute)
	c.RecoveryMaxErrorRate = 0.01
	if v := strings.TrimSpace(getenv(EnvRecoveryMaxErrorRate)); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < 0 || f > 1 {
			bad(EnvRecoveryMaxErrorRate, "want a rate in [0,1], got %q", v)
		} else {
			c.RecoveryMaxErrorRate = f
		}
	}
	c.RecoveryMinRequests = 20
	if v := strings.TrimSpace(getenv(EnvRecoveryMinRequests)); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			bad(EnvRecoveryMinRequests, "want a whole number of requests >= 1, got %q", v)
		} else {
			c.RecoveryMinRequests = n
		}
	}
	if v := strings.TrimSpace(getenv(EnvProbeMaxErrors)); v != "" {
		bad(EnvProbeMaxErrors, "replaced by %s, which the sandbox check and the probe share", EnvRecoveryMaxErrorRate)
	}
	switch c.Recovery {
	case RecoverySandbox, RecoveryNone:
		if c.ProbeURL != "" {
			bad(EnvProbeURL, "only with %s=%s (the HTTP probe fallback for setups without SigNoz)", EnvRecovery, RecoveryProbe)
		}
	case RecoveryProbe:
		if c.ProbeURL == "" {
			bad(EnvProbeURL, "required with %s=%s", EnvRecovery, RecoveryProbe)
		}
	default:
		bad(EnvRecovery, "want %s, %s or %s, got %q", RecoverySandbox, RecoveryProbe, RecoveryNone, c.Recovery)
	}
}
