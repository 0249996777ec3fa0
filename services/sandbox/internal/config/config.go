// Package config reads the sandbox's configuration from the environment, once,
// reporting every problem at once.
package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	platformconfig "agentk/platform/config"
)

// ErrInvalid is wrapped by every configuration problem.
var ErrInvalid = errors.New("config: invalid")

// Auth modes for the SigNoz API key.
const (
	AuthHeader = "header" // SIGNOZ-API-KEY: <key>
	AuthBearer = "bearer" // Authorization: Bearer <key>
)

// Backends: where the sandbox gets its telemetry.
const (
	BackendAPI = "api" // SigNoz's v5 query API
	BackendMCP = "mcp" // a SigNoz MCP server
)

// DefaultExclude are the pipeline's own service names: their telemetry is never
// investigated.
var DefaultExclude = []string{
	"agentk", "agentk-ingester", "agentk-sandbox", "agentk-investigator",
	"agentk-reviewer", "agentk-gate", "agentk-bridge", "agentk-deployer",
}

// Config is the sandbox's configuration.
type Config struct {
	// SigNozURL is where the query API is served.
	SigNozURL string
	// LinkBaseURL is the SigNoz UI base for deep links (defaults to SigNozURL).
	LinkBaseURL string
	// APIKey is the read-only SigNoz key. Never log it.
	APIKey string
	// Auth is AuthHeader or AuthBearer.
	Auth    string
	Timeout time.Duration
	// MaxCalls caps tool calls per investigation.
	MaxCalls int
	// Exclude are service names never queried nor shown.
	Exclude []string
	// Backend is BackendAPI or BackendMCP.
	Backend string
	// MCPCommand and MCPArgs start a SigNoz MCP server over stdio; MCPURL
	// reaches one over streamable HTTP (Backend mcp: exactly one of them).
	MCPCommand string
	MCPArgs    []string
	MCPURL     string
}

// String renders the configuration without the key.
func (c Config) String() string {
	s := fmt.Sprintf("signoz_url=%s link_base_url=%s auth=%s timeout=%s max_calls=%d exclude=%v api_key_set=%t backend=%s",
		c.SigNozURL, c.LinkBaseURL, c.Auth, c.Timeout, c.MaxCalls, c.Exclude, c.APIKey != "", c.Backend)
	if c.Backend == BackendMCP {
		s += fmt.Sprintf(" mcp_command=%q mcp_args=%q mcp_url=%s", c.MCPCommand, c.MCPArgs, c.MCPURL)
	}
	return s
}

// FromEnv reads the configuration through getenv. File-valued secrets
// (AGENTK_SIGNOZ_API_KEY_FILE) are read with readFile (os.ReadFile when nil).
func FromEnv(getenv func(string) string, readFile func(string) ([]byte, error)) (Config, error) {
	if readFile == nil {
		readFile = os.ReadFile
	}
	var errs []error
	bad := func(format string, a ...any) {
		errs = append(errs, fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, a...)...))
	}

	c := Config{
		SigNozURL: strings.TrimRight(orDefault(getenv("AGENTK_SIGNOZ_URL"), "http://localhost:8080"), "/"),
		Auth:      strings.ToLower(orDefault(getenv("AGENTK_SIGNOZ_AUTH"), AuthHeader)),
		Timeout:   30 * time.Second,
		MaxCalls:  30,
		Exclude:   DefaultExclude,
	}
	if u, err := url.Parse(c.SigNozURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		bad("AGENTK_SIGNOZ_URL=%q is not an http(s) URL", c.SigNozURL)
	}
	// The one link base the reviewer checks links against, derived the same way.
	if base, _, err := platformconfig.SigNozLinkBase(getenv); err != nil {
		bad("%s", strings.TrimPrefix(err.Error(), platformconfig.ErrInvalid.Error()+": "))
	} else {
		c.LinkBaseURL = base
	}
	if c.Auth != AuthHeader && c.Auth != AuthBearer {
		bad("AGENTK_SIGNOZ_AUTH=%q: want header or bearer", c.Auth)
	}

	key, file := getenv("AGENTK_SIGNOZ_API_KEY"), getenv("AGENTK_SIGNOZ_API_KEY_FILE")
	switch {
	case key != "" && file != "":
		bad("set AGENTK_SIGNOZ_API_KEY or AGENTK_SIGNOZ_API_KEY_FILE, not both")
	case file != "":
		b, err := readFile(file)
		if err != nil {
			bad("AGENTK_SIGNOZ_API_KEY_FILE: %v", err)
		}
		key = strings.TrimSpace(string(b))
		if err == nil && key == "" {
			bad("AGENTK_SIGNOZ_API_KEY_FILE %s is empty", file)
		}
	case key == "":
		bad("AGENTK_SIGNOZ_API_KEY (or _FILE) is required")
	}
	c.APIKey = key

	if v := getenv("AGENTK_SIGNOZ_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 || d > 5*time.Minute {
			bad("AGENTK_SIGNOZ_TIMEOUT=%q: want a duration in (0, 5m]", v)
		} else {
			c.Timeout = d
		}
	}
	if v := getenv("AGENTK_SANDBOX_MAX_CALLS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			bad("AGENTK_SANDBOX_MAX_CALLS=%q: want an integer in [1, 1000]", v)
		} else {
			c.MaxCalls = n
		}
	}
	c.Backend = strings.ToLower(orDefault(getenv("AGENTK_SANDBOX_BACKEND"), BackendAPI))
	c.MCPCommand, c.MCPURL = getenv("AGENTK_SIGNOZ_MCP_COMMAND"), getenv("AGENTK_SIGNOZ_MCP_URL")
	if v := getenv("AGENTK_SIGNOZ_MCP_ARGS"); v != "" {
		args, err := splitArgs(v)
		if err != nil {
			bad("AGENTK_SIGNOZ_MCP_ARGS=%q: %v", v, err)
		}
		c.MCPArgs = args
	}
	switch c.Backend {
	case BackendAPI:
		if c.MCPCommand != "" || c.MCPURL != "" || c.MCPArgs != nil {
			bad("AGENTK_SIGNOZ_MCP_COMMAND/_ARGS/_URL are set but AGENTK_SANDBOX_BACKEND=%s; set AGENTK_SANDBOX_BACKEND=mcp to use them", c.Backend)
		}
	case BackendMCP:
		switch {
		case c.MCPCommand == "" && c.MCPURL == "":
			bad("AGENTK_SANDBOX_BACKEND=mcp needs AGENTK_SIGNOZ_MCP_COMMAND (stdio) or AGENTK_SIGNOZ_MCP_URL (streamable HTTP)")
		case c.MCPCommand != "" && c.MCPURL != "":
			bad("set AGENTK_SIGNOZ_MCP_COMMAND or AGENTK_SIGNOZ_MCP_URL, not both")
		case c.MCPURL != "":
			if u, err := url.Parse(c.MCPURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				bad("AGENTK_SIGNOZ_MCP_URL=%q is not an http(s) URL", c.MCPURL)
			}
		}
		if c.MCPArgs != nil && c.MCPCommand == "" {
			bad("AGENTK_SIGNOZ_MCP_ARGS is set without AGENTK_SIGNOZ_MCP_COMMAND")
		}
	default:
		bad("AGENTK_SANDBOX_BACKEND=%q: want api or mcp", c.Backend)
	}
	if v, ok := lookup(getenv, "AGENTK_SANDBOX_EXCLUDE_SERVICES"); ok {
		c.Exclude = nil
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				c.Exclude = append(c.Exclude, s)
			}
		}
	}
	return c, errors.Join(errs...)
}

// splitArgs reads a command's arguments: a JSON array of strings, or words
// separated by white space.
func splitArgs(v string) ([]string, error) {
	v = strings.TrimSpace(v)
	if strings.HasPrefix(v, "[") {
		var out []string
		if err := json.Unmarshal([]byte(v), &out); err != nil {
			return nil, fmt.Errorf("not a JSON array of strings: %v", err)
		}
		return out, nil
	}
	return strings.Fields(v), nil
}

func orDefault(v, d string) string {
	if v == "" {
		return d
	}
	return v
}

// lookup treats an empty value as unset: an empty exclude list must be written
// explicitly as "-" to be honoured, so a blank variable cannot silently let the
// pipeline's own telemetry in.
func lookup(getenv func(string) string, name string) (string, bool) {
	v := getenv(name)
	if v == "" {
		return "", false
	}
	if v == "-" {
		return "", true
	}
	return v, true
}
