package config_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"agentk/services/reviewer/internal/config"
)

func TestFromEnv(t *testing.T) {
	t.Parallel()
	c, err := config.FromEnv(func(string) string { return "" })
	require.NoError(t, err)
	require.Equal(t, "http://localhost:8080", c.BaseURL.String())
	require.Equal(t, 0.01, c.Tolerance)
	require.Len(t, c.Catalogue, 10)

	path := filepath.Join(t.TempDir(), "cat.yaml")
	require.NoError(t, os.WriteFile(path, []byte("- name: bad_release\n  deployment_class: true\n"), 0o600))
	env := map[string]string{config.EnvBaseURL: "https://signoz.example.com/signoz", config.EnvTolerance: "0.05", config.EnvCatalogueFile: path}
	c, err = config.FromEnv(func(k string) string { return env[k] })
	require.NoError(t, err)
	require.Equal(t, "signoz.example.com", c.BaseURL.Host)
	require.Equal(t, 0.05, c.Tolerance)
	require.Len(t, c.Catalogue, 1)
}

func TestFromEnvReportsEveryProblem(t *testing.T) {
	t.Parallel()
	env := map[string]string{config.EnvBaseURL: "localhost:8080", config.EnvTolerance: "0.5", config.EnvCatalogueFile: "/nope.yaml"}
	_, err := config.FromEnv(func(k string) string { return env[k] })
	require.ErrorIs(t, err, config.ErrInvalid)
	for _, n := range []string{config.EnvBaseURL, config.EnvTolerance, config.EnvCatalogueFile} {
		require.ErrorContains(t, err, n)
	}
}

// TestBaseURLFollowsSigNozURL is issue 19: with only AGENTK_SIGNOZ_URL set,
// as docs/signoz.md says, the reviewer's base stayed at localhost:8080 and
// every claim was dropped as "not under the configured SigNoz".
func TestBaseURLFollowsSigNozURL(t *testing.T) {
	t.Parallel()
	c, err := config.FromEnv(func(k string) string {
		return map[string]string{"AGENTK_SIGNOZ_URL": "http://signoz.internal:8080"}[k]
	})
	require.NoError(t, err)
	require.Equal(t, "http://signoz.internal:8080", c.BaseURL.String())
}
