// Package config reads the sandbox's configuration from the environment, once,
// reporting every problem at once.
package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"agentk/platform/config"
)

// ErrInvalid is wrapped by every configuration problem.
var ErrInvalid = errors.New("sandbox: invalid configuration")

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
	// MCPEnv names the variables of the sandbox's own environment a stdio
	// server gets besides SIGNOZ_URL, SIGNOZ_API_KEY, PATH, HOME and TMPDIR.
	MCPEnv []string
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

// Environment variables.
const (
	EnvSigNozURL  = config.EnvSigNozURL
	EnvLinkBase   = config.EnvSigNozBaseURL
	EnvAPIKey     = "AGENTK_SIGNOZ_API_KEY"
	EnvAuth       = "AGENTK_SIGNOZ_AUTH"
	EnvTimeout    = "AGENTK_SIGNOZ_TIMEOUT"
	EnvBackend    = "AGENTK_SANDBOX_BACKEND"
	EnvMCPCommand = "AGENTK_SIGNOZ_MCP_COMMAND"
	EnvMCPArgs    = "AGENTK_SIGNOZ_MCP_ARGS"
	EnvMCPURL     = "AGENTK_SIGNOZ_MCP_URL"
	EnvMCPEnv     = "AGENTK_SIGNOZ_MCP_ENV"
	EnvMaxCalls   = "AGENTK_SANDBOX_MAX_CALLS"
	EnvExclude    = "AGENTK_SANDBOX_EXCLUDE_SERVICES"
)

// Spec declares every variable the sandbox reads.
var Spec = config.Spec{Component: "sandbox", Err: ErrInvalid, Vars: []config.Decl{
	{Name: EnvSigNozURL, Kind: config.KindURL, Default: config.DefaultSigNozURL, Doc: "SigNoz query API (`POST /api/v5/query_range`)"},
	{Name: EnvLinkBase, DocDefault: "`AGENTK_SIGNOZ_URL`", Doc: "SigNoz UI base for deep links, if different"},
	{Name: EnvAPIKey, Secret: true, Required: true, DocDefault: "required, one of them", Doc: "read-only SigNoz API key; never logged"},
	{Name: EnvAuth, Kind: config.KindEnum, Default: AuthHeader, Allowed: []string{AuthHeader, AuthBearer}, Doc: "`header`: `SIGNOZ-API-KEY: <key>`; `bearer`: `Authorization: Bearer <key>`"},
	{Name: EnvTimeout, Kind: config.KindDuration, Default: "30s", MaxDur: 5 * time.Minute, Doc: "per HTTP request; 429/5xx/transport errors are retried 3 times with backoff (500 ms doubling, `Retry-After` honoured, max 10 s)"},
	{Name: EnvBackend, Kind: config.KindEnum, Default: BackendAPI, Allowed: []string{BackendAPI, BackendMCP}, Doc: "where telemetry comes from: `api`, SigNoz's v5 query API at `AGENTK_SIGNOZ_URL`; `mcp`, a SigNoz MCP server (docs/signoz.md)"},
	{Name: EnvMCPCommand, DocDefault: "none", Doc: "`mcp` over stdio: the server's executable, started with only `SIGNOZ_URL`, `SIGNOZ_API_KEY`, `PATH`, `HOME`, `TMPDIR` and the variables `AGENTK_SIGNOZ_MCP_ENV` names in its environment"},
	{Name: EnvMCPArgs, DocDefault: "none", Doc: "its arguments: a JSON array of strings, or words separated by spaces"},
	{Name: EnvMCPEnv, Kind: config.KindList, DocDefault: "none", Doc: "`mcp` over stdio: names of further variables of the sandbox's environment the server gets, comma-separated (e.g. `SIGNOZ_CUSTOM_HEADERS,HTTPS_PROXY,SSL_CERT_FILE`); nothing else of the environment is passed on, and `AGENTK_*`, `SIGNOZ_URL` and `SIGNOZ_API_KEY` cannot be named"},
	{Name: EnvMCPURL, Kind: config.KindURL, DocDefault: "none", Doc: "`mcp` over streamable HTTP: the endpoint (e.g. `http://signoz-mcp:8000/mcp`); the key goes in each request's header (`AGENTK_SIGNOZ_AUTH`). Exactly one of `_COMMAND` and `_URL`"},
	{Name: EnvMaxCalls, Kind: config.KindInt, Default: "30", Min: 1, Max: 1000, Doc: "tool calls per investigation (in memory: a restart resets it)"},
	{Name: EnvExclude, Kind: config.KindList, Default: strings.Join(DefaultExclude, ","), Doc: "the pipeline's own `service.name`s, comma-separated; `-` for none"},
}}

// FromEnv reads the configuration through getenv. File-valued secrets
// (AGENTK_SIGNOZ_API_KEY_FILE) are read with readFile (os.ReadFile when nil).
func FromEnv(getenv func(string) string, readFile func(string) ([]byte, error)) (Config, error) {
	if readFile == nil {
		readFile = os.ReadFile
	}
	v := Spec.ReadWith(getenv, readFile)
	c := Config{
		SigNozURL: strings.TrimRight(v.String(EnvSigNozURL), "/"),
		APIKey:    v.String(EnvAPIKey),
		Auth:      v.String(EnvAuth),
		Timeout:   v.Duration(EnvTimeout),
		MaxCalls:  v.Int(EnvMaxCalls),
		Backend:   v.String(EnvBackend),
		Exclude:   v.List(EnvExclude),
		// An empty exclude list must be written explicitly as "-": a blank
		// variable cannot silently let the pipeline's own telemetry in.
		MCPCommand: v.String(EnvMCPCommand),
		MCPURL:     v.String(EnvMCPURL),
		MCPEnv:     v.List(EnvMCPEnv),
	}
	if slices.Equal(c.Exclude, []string{"-"}) {
		c.Exclude = nil
	}
	// The one link base the reviewer checks links against, derived the same way.
	if base, name, err := config.SigNozLinkBase(getenv); err != nil {
		v.Failf(name, "%s", strings.TrimPrefix(err.Error(), config.ErrInvalid.Error()+": "))
	} else {
		c.LinkBaseURL = base
	}
	if s := v.String(EnvMCPArgs); s != "" {
		args, err := splitArgs(s)
		if err != nil {
			v.Failf(EnvMCPArgs, "%q: %v", s, err)
		}
		c.MCPArgs = args
	}
	c.checkBackend(v)
	return c, v.Err()
}

// checkBackend checks the MCP settings against the backend.
func (c Config) checkBackend(v *config.Values) {
	switch c.Backend {
	case BackendAPI:
		if c.MCPCommand != "" || c.MCPURL != "" || c.MCPArgs != nil || c.MCPEnv != nil {
			v.Problem("%s/_ARGS/_URL/_ENV are set but %s=%s; set %s=mcp to use them", EnvMCPCommand, EnvBackend, c.Backend, EnvBackend)
		}
	case BackendMCP:
		switch {
		case c.MCPCommand == "" && c.MCPURL == "":
			v.Failf(EnvBackend, "mcp needs %s (stdio) or %s (streamable HTTP)", EnvMCPCommand, EnvMCPURL)
		case c.MCPCommand != "" && c.MCPURL != "":
			v.Problem("set %s or %s, not both", EnvMCPCommand, EnvMCPURL)
		}
		if c.MCPArgs != nil && c.MCPCommand == "" {
			v.Failf(EnvMCPArgs, "set without %s", EnvMCPCommand)
		}
		if c.MCPEnv != nil && c.MCPCommand == "" {
			v.Failf(EnvMCPEnv, "set without %s: only a server the sandbox starts gets its environment", EnvMCPCommand)
		}
		for _, k := range c.MCPEnv {
			if err := PassableEnv(k); err != nil {
				v.Failf(EnvMCPEnv, "%v", err)
			}
		}
	}
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

// PassableEnv says whether the variable k may be passed to a stdio MCP
// server (AGENTK_SIGNOZ_MCP_ENV): a variable name, not one the sandbox sets
// itself (SIGNOZ_URL, SIGNOZ_API_KEY) and none of agentk's own, which hold
// its keys and secrets.
func PassableEnv(k string) error {
	switch {
	case !envName.MatchString(k):
		return fmt.Errorf("%q is not a variable name", k)
	case k == "SIGNOZ_URL" || k == "SIGNOZ_API_KEY":
		return fmt.Errorf("%s is set by the sandbox itself", k)
	case strings.HasPrefix(strings.ToUpper(k), "AGENTK_"):
		return fmt.Errorf("%s is agentk's own: its variables are never passed to the MCP server", k)
	}
	return nil
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
