package config_test

import (
	"maps"
	"testing"
	"time"

	"agentk/services/deployer/internal/config"

	"github.com/stretchr/testify/require"
)

func TestRecoverySettings(t *testing.T) {
	t.Parallel()
	base := map[string]string{config.EnvServices: "shop-api"}
	with := func(kv ...string) map[string]string {
		m := maps.Clone(base)
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	c, err := config.FromEnv(env(base))
	require.NoError(t, err)
	require.Equal(t, config.RecoverySandbox, c.Recovery, "telemetry through the sandbox by default")
	require.Equal(t, 0.01, c.RecoveryMaxErrorRate)
	require.EqualValues(t, 20, c.RecoveryMinRequests)
	require.Equal(t, time.Minute, c.RecoveryTimeout)

	c, err = config.FromEnv(env(with(config.EnvRecovery, "probe", config.EnvProbeURL, "http://shop-api:8080/healthz",
		config.EnvRecoveryMaxErrorRate, "0.05", config.EnvRecoveryMinRequests, "100", config.EnvRecoveryTimeout, "90s")))
	require.NoError(t, err)
	require.Equal(t, config.RecoveryProbe, c.Recovery)
	require.Equal(t, "http://shop-api:8080/healthz", c.ProbeURL)
	require.Equal(t, 0.05, c.RecoveryMaxErrorRate)
	require.EqualValues(t, 100, c.RecoveryMinRequests)
	require.Equal(t, 90*time.Second, c.RecoveryTimeout)

	cases := []struct {
		name string
		env  map[string]string
		want string
	}{
		{name: "unknown check", env: with(config.EnvRecovery, "vibes"), want: config.EnvRecovery},
		{name: "probe without a URL", env: with(config.EnvRecovery, "probe"), want: config.EnvProbeURL},
		{name: "probe URL without choosing the probe", env: with(config.EnvProbeURL, "http://x/"), want: "only with AGENTK_DEPLOYER_RECOVERY=probe"},
		{name: "rate out of range", env: with(config.EnvRecoveryMaxErrorRate, "5"), want: config.EnvRecoveryMaxErrorRate},
		{name: "no minimum traffic", env: with(config.EnvRecoveryMinRequests, "0"), want: config.EnvRecoveryMinRequests},
		{name: "old probe SLO variable", env: with(config.EnvProbeMaxErrors, "0.01"), want: "replaced by " + config.EnvRecoveryMaxErrorRate},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := config.FromEnv(env(c.env))
			require.ErrorIs(t, err, config.ErrConfig)
			require.Contains(t, err.Error(), c.want)
		})
	}
}
