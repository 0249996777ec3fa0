package replaycmd

import (
	"encoding/json"
	"fmt"
	"strings"

	"agentk/cmd/agentk/internal/command"
	"agentk/cmd/agentk/replay"
)

// mcpFlags are a replay's or an eval's choice of MCP server: by default the
// sandbox's own variables (AGENTK_SANDBOX_BACKEND, AGENTK_SIGNOZ_MCP_*),
// which the flags override. Without any, the "mcp" backend uses our own
// test server, as before.
type mcpFlags struct {
	backend, command, args, url, env *string
}

func addMCPFlags(fs *command.FlagSet, c *command.Env) mcpFlags {
	return mcpFlags{
		backend: fs.String("sandbox-backend", c.Getenv("AGENTK_SANDBOX_BACKEND"), "api (SigNoz's API) or mcp (a SigNoz MCP server); default $AGENTK_SANDBOX_BACKEND, and mcp when an MCP server is given"),
		command: fs.String("mcp-command", c.Getenv("AGENTK_SIGNOZ_MCP_COMMAND"), "an MCP server to start over stdio (e.g. the official signoz-mcp-server); default $AGENTK_SIGNOZ_MCP_COMMAND"),
		args:    fs.String("mcp-args", c.Getenv("AGENTK_SIGNOZ_MCP_ARGS"), "its arguments: a JSON array of strings or words; default $AGENTK_SIGNOZ_MCP_ARGS"),
		url:     fs.String("mcp-url", c.Getenv("AGENTK_SIGNOZ_MCP_URL"), "a streamable HTTP MCP server (e.g. http://127.0.0.1:8000/mcp); default $AGENTK_SIGNOZ_MCP_URL"),
		env:     fs.String("mcp-env", c.Getenv("AGENTK_SIGNOZ_MCP_ENV"), "variables the stdio server also gets, comma-separated; default $AGENTK_SIGNOZ_MCP_ENV"),
	}
}

// options sets o's backend and MCP server from the flags.
func (f mcpFlags) options(o *replay.Options) error {
	m := replay.MCPServer{Command: strings.TrimSpace(*f.command), URL: strings.TrimSpace(*f.url)}
	if s := strings.TrimSpace(*f.args); s != "" {
		if strings.HasPrefix(s, "[") {
			if err := json.Unmarshal([]byte(s), &m.Args); err != nil {
				return fmt.Errorf("%w: --mcp-args %q: not a JSON array of strings: %v", command.ErrUsage, s, err)
			}
		} else {
			m.Args = strings.Fields(s)
		}
	}
	for _, k := range strings.Split(*f.env, ",") {
		if k = strings.TrimSpace(k); k != "" {
			m.Env = append(m.Env, k)
		}
	}
	o.SandboxBackend, o.MCP = strings.ToLower(strings.TrimSpace(*f.backend)), m
	if o.SandboxBackend == "" && !m.IsZero() {
		o.SandboxBackend = "mcp"
	}
	return nil
}
