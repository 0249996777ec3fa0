package config

import (
	"errors"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestFromEnv(t *testing.T) {
	t.Parallel()
	files := func(p string) ([]byte, error) {
		if p == "/run/secrets/key" {
			return []byte("s3cret\n"), nil
		}
		return nil, os.ErrNotExist
	}
	tests := []struct {
		name    string
		env     map[string]string
		check   func(t *testing.T, c Config)
		wantErr []string
	}{
		{name: "defaults", env: map[string]string{"AGENTK_SIGNOZ_API_KEY": "k"}, check: func(t *testing.T, c Config) {
			require.Equal(t, "http://localhost:8080", c.SigNozURL)
			require.Equal(t, "http://localhost:8080", c.LinkBaseURL)
			require.Equal(t, AuthHeader, c.Auth)
			require.Equal(t, 30*time.Second, c.Timeout)
			require.Equal(t, 30, c.MaxCalls)
			require.Equal(t, DefaultExclude, c.Exclude)
		}},
		{name: "everything set", env: map[string]string{
			"AGENTK_SIGNOZ_URL": "http://signoz:8080/", "AGENTK_SIGNOZ_BASE_URL": "https://signoz.example.com",
			"AGENTK_SIGNOZ_API_KEY_FILE": "/run/secrets/key", "AGENTK_SIGNOZ_AUTH": "Bearer",
			"AGENTK_SIGNOZ_TIMEOUT": "5s", "AGENTK_SANDBOX_MAX_CALLS": "12", "AGENTK_SANDBOX_EXCLUDE_SERVICES": "a, b,,",
		}, check: func(t *testing.T, c Config) {
			require.Equal(t, "http://signoz:8080", c.SigNozURL)
			require.Equal(t, "https://signoz.example.com", c.LinkBaseURL)
			require.Equal(t, "s3cret", c.APIKey)
			require.Equal(t, AuthBearer, c.Auth)
			require.Equal(t, 5*time.Second, c.Timeout)
			require.Equal(t, 12, c.MaxCalls)
			require.Equal(t, []string{"a", "b"}, c.Exclude)
			require.NotContains(t, c.String(), "s3cret")
		}},
		{name: "explicitly empty exclude", env: map[string]string{"AGENTK_SIGNOZ_API_KEY": "k", "AGENTK_SANDBOX_EXCLUDE_SERVICES": "-"},
			check: func(t *testing.T, c Config) { require.Empty(t, c.Exclude) }},
		{name: "every problem at once", env: map[string]string{
			"AGENTK_SIGNOZ_URL": "localhost:8080", "AGENTK_SIGNOZ_AUTH": "basic", "AGENTK_SIGNOZ_TIMEOUT": "soon",
			"AGENTK_SANDBOX_MAX_CALLS": "0",
		}, wantErr: []string{"AGENTK_SIGNOZ_URL", "AGENTK_SIGNOZ_AUTH", "AGENTK_SIGNOZ_TIMEOUT", "AGENTK_SANDBOX_MAX_CALLS", "AGENTK_SIGNOZ_API_KEY"}},
		{name: "key and file", env: map[string]string{"AGENTK_SIGNOZ_API_KEY": "k", "AGENTK_SIGNOZ_API_KEY_FILE": "/run/secrets/key"},
			wantErr: []string{"not both"}},
		{name: "missing file", env: map[string]string{"AGENTK_SIGNOZ_API_KEY_FILE": "/nope"}, wantErr: []string{"AGENTK_SIGNOZ_API_KEY_FILE"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := FromEnv(env(tt.env), files)
			if tt.wantErr != nil {
				require.Error(t, err)
				require.True(t, errors.Is(err, ErrInvalid))
				for _, w := range tt.wantErr {
					require.Contains(t, err.Error(), w)
				}
				return
			}
			require.NoError(t, err)
			tt.check(t, c)
		})
	}
}
