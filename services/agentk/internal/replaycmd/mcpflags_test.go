package replaycmd

import (
	"context"
	"io"
	"path/filepath"
	"testing"

	"agentk/cmd/agentk/internal/command"
	"agentk/cmd/agentk/replay"

	"github.com/stretchr/testify/require"
)

// TestMCPFlagsChooseTheServer: `agentk replay` and `eval` take an external
// MCP server from the sandbox's own variables or from flags (the flags
// win), imply the mcp backend, and refuse a contradiction.
func TestMCPFlagsChooseTheServer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		env     map[string]string
		args    []string
		backend string
		want    replay.MCPServer
	}{
		{name: "none: the API", backend: ""},
		{name: "our server", env: map[string]string{"AGENTK_SANDBOX_BACKEND": "mcp"}, backend: "mcp"},
		{name: "command from the environment", env: map[string]string{"AGENTK_SIGNOZ_MCP_COMMAND": "/usr/local/bin/signoz-mcp-server", "AGENTK_SIGNOZ_MCP_ENV": "HTTPS_PROXY, SSL_CERT_FILE"},
			backend: "mcp", want: replay.MCPServer{Command: "/usr/local/bin/signoz-mcp-server", Env: []string{"HTTPS_PROXY", "SSL_CERT_FILE"}}},
		{name: "flags win", env: map[string]string{"AGENTK_SIGNOZ_MCP_COMMAND": "/usr/local/bin/signoz-mcp-server"},
			args: []string{"--mcp-command", "", "--mcp-url", "http://127.0.0.1:8000/mcp"}, backend: "mcp", want: replay.MCPServer{URL: "http://127.0.0.1:8000/mcp"}},
		{name: "args as JSON", args: []string{"--mcp-command", "srv", "--mcp-args", `["-v", "x y"]`},
			backend: "mcp", want: replay.MCPServer{Command: "srv", Args: []string{"-v", "x y"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := &command.Env{Stdout: io.Discard, Stderr: io.Discard, Getenv: func(k string) string { return tt.env[k] }}
			fs := command.NewFlags(c, "replay", "replay")
			f := addMCPFlags(fs, c)
			require.NoError(t, fs.Parse(tt.args))
			var o replay.Options
			require.NoError(t, f.options(&o))
			require.Equal(t, tt.backend, o.SandboxBackend)
			require.Equal(t, tt.want, o.MCP)
		})
	}
	// An external server with the API backend is refused, not ignored.
	_, err := replay.Run(context.Background(), filepath.Join(repoRoot, "e2e", "incidents", "bad-release-01"),
		replay.Options{SandboxBackend: "api", MCP: replay.MCPServer{URL: "http://127.0.0.1:1/mcp"}})
	require.ErrorIs(t, err, replay.ErrBackend)
}
