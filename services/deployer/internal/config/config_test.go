package config_test

import (
	"testing"
	"time"

	"agentk/services/deployer/internal/config"

	"github.com/stretchr/testify/require"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestFromEnv(t *testing.T) {
	t.Parallel()
	docker := map[string]string{
		config.EnvRuntime: "docker", config.EnvServices: "shop-api, payments", config.EnvProject: "shop",
		config.EnvComposeFile: "/srv/shop/docker-compose.yml", config.EnvStateDir: "/var/lib/agentk",
	}
	c, err := config.FromEnv(env(docker))
	require.NoError(t, err)
	require.Equal(t, []string{"shop-api", "payments"}, c.Services)
	require.Equal(t, 2*time.Minute, c.ComposeTimeout)
	require.Equal(t, time.Minute, c.Stabilise)
	require.Equal(t, 10*time.Minute, c.Cooldown)
	require.Equal(t, 10*time.Second, c.Lease)

	c, err = config.FromEnv(env(map[string]string{config.EnvIncidentDir: "/corpus/retry-storm-01"}))
	require.NoError(t, err)
	require.Equal(t, config.RuntimeDryRun, c.Runtime, "the default runtime changes nothing")
}

func TestFromEnvReportsEveryProblem(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		env  map[string]string
		want []string
	}{
		{name: "docker without its settings", env: map[string]string{config.EnvRuntime: "docker"},
			want: []string{config.EnvServices, config.EnvProject, config.EnvComposeFile, config.EnvStateDir}},
		{name: "bad values", env: map[string]string{config.EnvRuntime: "k8s", config.EnvStabilise: "soon", config.EnvServices: "shop api;rm -rf"},
			want: []string{config.EnvRuntime, config.EnvStabilise, config.EnvServices}},
		{name: "recorded incident with the docker runtime", env: map[string]string{
			config.EnvRuntime: "docker", config.EnvServices: "shop-api", config.EnvProject: "shop",
			config.EnvComposeFile: "c.yml", config.EnvStateDir: "/s", config.EnvIncidentDir: "/corpus/x"},
			want: []string{config.EnvIncidentDir}},
		{name: "lease too short to renew", env: map[string]string{config.EnvIncidentDir: "/corpus/x", config.EnvLease: "200ms"},
			want: []string{config.EnvLease}},
		{name: "lease not a duration", env: map[string]string{config.EnvIncidentDir: "/corpus/x", config.EnvLease: "10"},
			want: []string{config.EnvLease}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := config.FromEnv(env(c.env))
			require.ErrorIs(t, err, config.ErrConfig)
			for _, w := range c.want {
				require.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestLedgerFromDocker(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		env  map[string]string
		want bool
	}{
		{name: "docker runtime", env: map[string]string{config.EnvRuntime: "docker", config.EnvServices: "shop-api", config.EnvProject: "shop", config.EnvComposeFile: "f", config.EnvStateDir: "s"}, want: true},
		{name: "dry run on a real stack", env: map[string]string{config.EnvServices: "shop-api", config.EnvProject: "shop"}, want: true},
		{name: "dry run of a recorded incident", env: map[string]string{config.EnvIncidentDir: "/corpus/x", config.EnvProject: "shop"}},
		{name: "dry run without a project", env: map[string]string{config.EnvServices: "shop-api"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := config.FromEnv(env(tc.env))
			require.NoError(t, err)
			require.Equal(t, tc.want, c.LedgerFromDocker())
		})
	}
}

func TestMarkerEndpoint(t *testing.T) {
	t.Parallel()
	const collector, own = "http://signoz-otel-collector:4318", "http://127.0.0.1:4318"
	cases := []struct {
		name  string
		env   map[string]string
		want  string
		grpc  bool
		watch bool
	}{
		{name: "the platform's collector over gRPC", env: map[string]string{config.EnvOTLPEndpoint: "http://collector:4317", config.EnvOTLPProtocol: "grpc"}, want: "http://collector:4317", grpc: true, watch: true},
		{name: "the marker endpoint is OTLP/HTTP whatever the platform's protocol", env: map[string]string{config.EnvOTLPEndpoint: "http://collector:4317", config.EnvOTLPProtocol: "grpc", config.EnvMarkerEndpoint: own}, want: own, watch: true},
		{name: "the platform's collector, watch markers on by default", env: map[string]string{config.EnvOTLPEndpoint: collector}, want: collector, watch: true},
		{name: "no endpoint: no marker leaves the process", env: map[string]string{}, watch: true},
		{name: "AGENTK_OTEL_DISABLED: not the platform's collector", env: map[string]string{config.EnvOTLPEndpoint: collector, "AGENTK_OTEL_DISABLED": "1"}, watch: true},
		{name: "OTEL_SDK_DISABLED likewise", env: map[string]string{config.EnvOTLPEndpoint: collector, "OTEL_SDK_DISABLED": "true"}, watch: true},
		{name: "an explicit marker endpoint wins, even when disabled", env: map[string]string{config.EnvOTLPEndpoint: collector, "AGENTK_OTEL_DISABLED": "1", config.EnvMarkerEndpoint: own}, want: own, watch: true},
		{name: "watch markers switched off", env: map[string]string{config.EnvOTLPEndpoint: collector, config.EnvWatchMarkers: "false"}, want: collector},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.env[config.EnvServices] = "shop-api"
			c, err := config.FromEnv(env(tc.env))
			require.NoError(t, err)
			require.Equal(t, tc.want, c.MarkerEndpoint)
			require.Equal(t, tc.grpc, c.MarkerGRPC)
			require.Equal(t, tc.watch, c.WatchMarkers)
		})
	}
	_, err := config.FromEnv(env(map[string]string{config.EnvServices: "shop-api", config.EnvMarkerEndpoint: "collector:4318", config.EnvWatchMarkers: "maybe"}))
	require.ErrorIs(t, err, config.ErrConfig)
	require.ErrorContains(t, err, config.EnvMarkerEndpoint)
	require.ErrorContains(t, err, config.EnvWatchMarkers)
}
