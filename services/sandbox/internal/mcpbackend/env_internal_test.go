package mcpbackend

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestChildGetsOnlyTheDeclaredEnvironment: a stdio server gets SIGNOZ_URL,
// SIGNOZ_API_KEY, PATH, HOME, TMPDIR and the variables the operator
// declared (AGENTK_SIGNOZ_MCP_ENV), nothing else of the sandbox's
// environment; a declared variable that is unset is left out.
func TestChildGetsOnlyTheDeclaredEnvironment(t *testing.T) {
	t.Parallel()
	sandbox := map[string]string{
		"PATH": "/usr/bin", "HOME": "/home/sandbox",
		"SIGNOZ_CUSTOM_HEADERS": "X-Org:acme", "HTTPS_PROXY": "http://proxy:3128",
		"AGENTK_SIGNOZ_API_KEY_FILE": "/run/secrets/k", "AGENTK_NATS_CREDS": "/run/secrets/nats", "AWS_SECRET_ACCESS_KEY": "x",
	}
	lookup := func(k string) (string, bool) { v, ok := sandbox[k]; return v, ok }
	got := childEnv(Config{SigNozURL: "http://signoz:8080", APIKey: "ro", Env: []string{"SIGNOZ_CUSTOM_HEADERS", "HTTPS_PROXY", "SSL_CERT_FILE"}}, lookup)
	require.ElementsMatch(t, []string{
		"SIGNOZ_URL=http://signoz:8080", "SIGNOZ_API_KEY=ro", "PATH=/usr/bin", "HOME=/home/sandbox",
		"SIGNOZ_CUSTOM_HEADERS=X-Org:acme", "HTTPS_PROXY=http://proxy:3128",
	}, got)
	require.ElementsMatch(t, []string{"SIGNOZ_URL=http://signoz:8080", "SIGNOZ_API_KEY=ro", "PATH=/usr/bin", "HOME=/home/sandbox"},
		childEnv(Config{SigNozURL: "http://signoz:8080", APIKey: "ro"}, lookup), "nothing undeclared")
	for _, bad := range []string{"AGENTK_NATS_CREDS", "SIGNOZ_API_KEY", "A=B", ""} {
		_, err := New(Config{Command: "srv", APIKey: "ro", Env: []string{bad}})
		require.ErrorIs(t, err, ErrConfig, bad)
	}
}
