package config_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"agentk/services/gate/internal/config"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestFromEnvDefaults(t *testing.T) {
	t.Parallel()
	c, err := config.FromEnv(env(nil))
	require.NoError(t, err)
	p := c.Policy
	require.Equal(t, 1.0, p.BurnRateThreshold)
	require.Equal(t, 0.70, p.ConfidenceThreshold)
	require.Equal(t, 600*time.Second, p.Cooldown)
	require.Equal(t, 30*time.Minute, p.MarkerWindow)
	require.Equal(t, 5*time.Minute, p.MarkerTolerance)
	require.Equal(t, 15*time.Minute, p.DecisionTTL)
	require.Equal(t, []string{"rollback"}, p.Actions)
	require.Empty(t, p.SandboxServices, "no sandbox services: fail closed")
	require.Len(t, p.Catalogue, 10)
}

func TestFromEnvValues(t *testing.T) {
	t.Parallel()
	c, err := config.FromEnv(env(map[string]string{
		config.EnvBurnRateThreshold: "2", config.EnvConfidenceThreshold: "0.8",
		config.EnvCooldown: "900", config.EnvMarkerWindow: "45m", config.EnvDecisionTTL: "5m",
		config.EnvMarkerTolerance: "90",
		config.EnvActions:         " rollback ", config.EnvSandboxServices: "shop-api, search-api,,shop-api",
	}))
	require.NoError(t, err)
	require.Equal(t, 2.0, c.Policy.BurnRateThreshold)
	require.Equal(t, 0.8, c.Policy.ConfidenceThreshold)
	require.Equal(t, 900*time.Second, c.Policy.Cooldown)
	require.Equal(t, 45*time.Minute, c.Policy.MarkerWindow)
	require.Equal(t, 90*time.Second, c.Policy.MarkerTolerance)
	require.Equal(t, 5*time.Minute, c.Policy.DecisionTTL)
	require.Equal(t, []string{"shop-api", "search-api"}, c.Policy.SandboxServices)
}

func TestFromEnvReportsEveryProblem(t *testing.T) {
	t.Parallel()
	_, err := config.FromEnv(env(map[string]string{
		config.EnvBurnRateThreshold:   "NaN",
		config.EnvConfidenceThreshold: "1.5",
		config.EnvCooldown:            "soon",
		config.EnvMarkerWindow:        "-5m",
		config.EnvMarkerTolerance:     "2h",
		config.EnvDecisionTTL:         "48h",
		config.EnvActions:             "rollback,restart",
		config.EnvSandboxServices:     "shop api",
		config.EnvCatalogueFile:       "/nonexistent/catalogue.yaml",
	}))
	require.ErrorIs(t, err, config.ErrInvalid)
	for _, name := range []string{config.EnvBurnRateThreshold, config.EnvConfidenceThreshold, config.EnvCooldown,
		config.EnvMarkerWindow, config.EnvMarkerTolerance, config.EnvDecisionTTL, `"restart"`, config.EnvSandboxServices, config.EnvCatalogueFile} {
		require.Contains(t, err.Error(), name)
	}
}

func TestCatalogueFile(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		yaml string
		err  string
		n    int
	}{
		{"list", "- name: retry_storm\n  description: retries\n  deployment_class: true\n- name: unknown\n", "", 2},
		{"classes key", "classes:\n  - name: bad_release\n    deployment_class: true\n", "", 1},
		{"empty", "[]\n", "no classes", 0},
		{"duplicate", "- name: a\n- name: a\n", "twice", 0},
		{"bad name", "- name: Retry Storm\n", "lower_snake_case", 0},
		{"unknown as deployment class", "- name: unknown\n  deployment_class: true\n", "never be deployment-class", 0},
		{"unknown field", "- name: a\n  deploy: true\n", "catalogue", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "catalogue.yaml")
			require.NoError(t, os.WriteFile(path, []byte(tc.yaml), 0o600))
			c, err := config.FromEnv(env(map[string]string{config.EnvCatalogueFile: path}))
			if tc.err != "" {
				require.ErrorIs(t, err, config.ErrInvalid)
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Len(t, c.Policy.Catalogue, tc.n)
		})
	}
}

func TestFromEnvShadow(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		value    string
		all      bool
		services []string
		bad      bool
	}{
		{name: "unset: acting"},
		{name: "all", value: "all", all: true},
		{name: "some services", value: "shop-api, cart-api", services: []string{"shop-api", "cart-api"}},
		{name: "not a service", value: "shop api", bad: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := config.FromEnv(env(map[string]string{config.EnvShadow: tc.value}))
			if tc.bad {
				require.ErrorIs(t, err, config.ErrInvalid)
				require.Contains(t, err.Error(), config.EnvShadow)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.all, c.Policy.ShadowAll)
			require.Equal(t, tc.services, c.Policy.ShadowServices)
		})
	}
}

func TestFromEnvOriginShare(t *testing.T) {
	t.Parallel()
	c, err := config.FromEnv(env(nil))
	require.NoError(t, err)
	require.Equal(t, 0.5, c.Policy.OriginShareThreshold)
	c, err = config.FromEnv(env(map[string]string{config.EnvOriginShare: "0.8"}))
	require.NoError(t, err)
	require.Equal(t, 0.8, c.Policy.OriginShareThreshold)
	for _, bad := range []string{"0.3", "1.2", "NaN", "most"} {
		_, err := config.FromEnv(env(map[string]string{config.EnvOriginShare: bad}))
		require.ErrorContains(t, err, config.EnvOriginShare, bad)
	}
}
