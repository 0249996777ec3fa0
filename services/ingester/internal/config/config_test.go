package config_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"agentk/services/ingester/internal/config"

	"github.com/stretchr/testify/require"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestFromEnv(t *testing.T) {
	t.Parallel()
	secret := filepath.Join(t.TempDir(), "token")
	require.NoError(t, os.WriteFile(secret, []byte("s3cret\n"), 0o600))
	tests := []struct {
		name  string
		env   map[string]string
		check func(t *testing.T, c config.Config)
		errs  []string
	}{
		{name: "token and defaults", env: map[string]string{"AGENTK_INGEST_TOKEN": "t"}, check: func(t *testing.T, c config.Config) {
			require.Equal(t, config.DefaultAddr, c.Addr)
			require.Equal(t, int64(1<<20), c.MaxBody)
			require.Equal(t, 4, c.MaxInvestigations)
			require.Equal(t, 15*time.Minute, c.Lease)
		}},
		{name: "token from file", env: map[string]string{"AGENTK_INGEST_TOKEN_FILE": secret}, check: func(t *testing.T, c config.Config) {
			require.Equal(t, "s3cret", c.Token)
		}},
		{name: "basic auth", env: map[string]string{"AGENTK_INGEST_BASIC_USER": "signoz", "AGENTK_INGEST_BASIC_PASSWORD_FILE": secret, "AGENTK_INGEST_MAX_BODY": "4096", "AGENTK_INGEST_MAX_INVESTIGATIONS": "2"},
			check: func(t *testing.T, c config.Config) {
				require.Equal(t, "signoz", c.BasicUser)
				require.Equal(t, "s3cret", c.BasicPassword)
				require.Equal(t, int64(4096), c.MaxBody)
				require.Equal(t, 2, c.MaxInvestigations)
			}},
		{name: "local only on loopback", env: map[string]string{"AGENTK_INGEST_LOCAL_ONLY": "true"}, check: func(t *testing.T, c config.Config) {
			require.True(t, c.LocalOnly)
			require.False(t, c.AuthConfigured())
		}},
		{name: "no credential refuses to start", env: map[string]string{}, errs: []string{"no credential"}},
		{name: "local only on a public address", env: map[string]string{"AGENTK_INGEST_LOCAL_ONLY": "true", "AGENTK_INGEST_ADDR": "0.0.0.0:8081"}, errs: []string{"needs a loopback"}},
		{name: "every problem at once", env: map[string]string{
			"AGENTK_INGEST_BASIC_USER": "u", "AGENTK_INGEST_MAX_BODY": "12", "AGENTK_INGEST_MAX_INVESTIGATIONS": "0",
			"AGENTK_INGEST_LOCAL_ONLY": "maybe", "AGENTK_INGEST_ADDR": "nope", "AGENTK_INGEST_INVESTIGATION_LEASE": "-1s",
			"AGENTK_INGEST_TOKEN": "a", "AGENTK_INGEST_TOKEN_FILE": secret,
		}, errs: []string{"AGENTK_INGEST_MAX_BODY", "AGENTK_INGEST_MAX_INVESTIGATIONS", "AGENTK_INGEST_LOCAL_ONLY", "AGENTK_INGEST_ADDR", "must be set together", "both set", "AGENTK_INGEST_INVESTIGATION_LEASE"}},
		{name: "missing secret file", env: map[string]string{"AGENTK_INGEST_TOKEN_FILE": "/nonexistent/token"}, errs: []string{"AGENTK_INGEST_TOKEN_FILE"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := config.FromEnv(env(tc.env))
			if len(tc.errs) > 0 {
				require.ErrorIs(t, err, config.ErrConfig)
				for _, e := range tc.errs {
					require.ErrorContains(t, err, e)
				}
				return
			}
			require.NoError(t, err)
			tc.check(t, c)
		})
	}
}
