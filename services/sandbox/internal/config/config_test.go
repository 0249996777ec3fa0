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
		{name: "mcp over stdio", env: map[string]string{"AGENTK_SIGNOZ_API_KEY": "mcp-s3cret", "AGENTK_SANDBOX_BACKEND": "MCP",
			"AGENTK_SIGNOZ_MCP_COMMAND": "/usr/local/bin/signoz-mcp-server", "AGENTK_SIGNOZ_MCP_ARGS": `["--log-level", "info"]`},
			check: func(t *testing.T, c Config) {
				require.Equal(t, BackendMCP, c.Backend)
				require.Equal(t, "/usr/local/bin/signoz-mcp-server", c.MCPCommand)
				require.Equal(t, []string{"--log-level", "info"}, c.MCPArgs)
				require.NotContains(t, c.String(), "mcp-s3cret")
			}},
		{name: "mcp over http", env: map[string]string{"AGENTK_SIGNOZ_API_KEY": "k", "AGENTK_SANDBOX_BACKEND": "mcp", "AGENTK_SIGNOZ_MCP_URL": "http://mcp:8000/mcp"},
			check: func(t *testing.T, c Config) { require.Equal(t, "http://mcp:8000/mcp", c.MCPURL) }},
		{name: "words as args", env: map[string]string{"AGENTK_SIGNOZ_API_KEY": "k", "AGENTK_SANDBOX_BACKEND": "mcp", "AGENTK_SIGNOZ_MCP_COMMAND": "srv", "AGENTK_SIGNOZ_MCP_ARGS": " a  b "},
			check: func(t *testing.T, c Config) { require.Equal(t, []string{"a", "b"}, c.MCPArgs) }},
		{name: "default backend is the api", env: map[string]string{"AGENTK_SIGNOZ_API_KEY": "k"},
			check: func(t *testing.T, c Config) { require.Equal(t, BackendAPI, c.Backend) }},
		{name: "mcp without a server", env: map[string]string{"AGENTK_SIGNOZ_API_KEY": "k", "AGENTK_SANDBOX_BACKEND": "mcp"}, wantErr: []string{"AGENTK_SIGNOZ_MCP_COMMAND", "AGENTK_SIGNOZ_MCP_URL"}},
		{name: "mcp with both", env: map[string]string{"AGENTK_SIGNOZ_API_KEY": "k", "AGENTK_SANDBOX_BACKEND": "mcp", "AGENTK_SIGNOZ_MCP_COMMAND": "x", "AGENTK_SIGNOZ_MCP_URL": "http://h/mcp"}, wantErr: []string{"not both"}},
		{name: "mcp bad url", env: map[string]string{"AGENTK_SIGNOZ_API_KEY": "k", "AGENTK_SANDBOX_BACKEND": "mcp", "AGENTK_SIGNOZ_MCP_URL": "h:8000"}, wantErr: []string{"AGENTK_SIGNOZ_MCP_URL"}},
		{name: "mcp settings without the backend", env: map[string]string{"AGENTK_SIGNOZ_API_KEY": "k", "AGENTK_SIGNOZ_MCP_URL": "http://h/mcp"}, wantErr: []string{"AGENTK_SANDBOX_BACKEND=api"}},
		{name: "unknown backend", env: map[string]string{"AGENTK_SIGNOZ_API_KEY": "k", "AGENTK_SANDBOX_BACKEND": "grpc"}, wantErr: []string{"AGENTK_SANDBOX_BACKEND"}},
		{name: "declared env for a stdio server", env: map[string]string{"AGENTK_SIGNOZ_API_KEY": "k", "AGENTK_SANDBOX_BACKEND": "mcp", "AGENTK_SIGNOZ_MCP_COMMAND": "srv",
			"AGENTK_SIGNOZ_MCP_ENV": "SIGNOZ_CUSTOM_HEADERS, HTTPS_PROXY,SSL_CERT_FILE"},
			check: func(t *testing.T, c Config) {
				require.Equal(t, []string{"SIGNOZ_CUSTOM_HEADERS", "HTTPS_PROXY", "SSL_CERT_FILE"}, c.MCPEnv)
			}},
		{name: "env names refused", env: map[string]string{"AGENTK_SIGNOZ_API_KEY": "k", "AGENTK_SANDBOX_BACKEND": "mcp", "AGENTK_SIGNOZ_MCP_COMMAND": "srv",
			"AGENTK_SIGNOZ_MCP_ENV": "AGENTK_SIGNOZ_API_KEY,SIGNOZ_API_KEY,A=B"}, wantErr: []string{"agentk's own", "set by the sandbox itself", "not a variable name"}},
		{name: "env for an HTTP server", env: map[string]string{"AGENTK_SIGNOZ_API_KEY": "k", "AGENTK_SANDBOX_BACKEND": "mcp", "AGENTK_SIGNOZ_MCP_URL": "http://h/mcp",
			"AGENTK_SIGNOZ_MCP_ENV": "HTTPS_PROXY"}, wantErr: []string{"AGENTK_SIGNOZ_MCP_ENV"}},
		{name: "bad args", env: map[string]string{"AGENTK_SIGNOZ_API_KEY": "k", "AGENTK_SANDBOX_BACKEND": "mcp", "AGENTK_SIGNOZ_MCP_COMMAND": "x", "AGENTK_SIGNOZ_MCP_ARGS": "[1]"}, wantErr: []string{"AGENTK_SIGNOZ_MCP_ARGS"}},
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
