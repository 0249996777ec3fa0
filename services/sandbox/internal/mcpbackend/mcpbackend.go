// Package mcpbackend gets the sandbox's telemetry from a SigNoz MCP server
// (the official signoz-mcp-server, or SigNoz Cloud's hosted one) instead of
// SigNoz's v5 API: over stdio, as a subprocess, or over streamable HTTP,
// with the official MCP Go SDK.
//
// The sandbox stays the only holder of the SigNoz key: a subprocess gets it
// in its environment (SIGNOZ_URL, SIGNOZ_API_KEY, as the official server
// reads them), an HTTP server in a header of each request. Only the
// allowlisted read tools below are ever called, each only if the server
// lists it as read-only, and every argument is validated against the input
// schema the server itself publishes before it is sent.
package mcpbackend

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"agentk/platform/mutant"
	"agentk/services/sandbox/internal/signoz"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The tools of the official SigNoz MCP server (v0.13.0) the sandbox calls.
const (
	// ToolQuery runs one complete v5 query_range request.
	ToolQuery = "signoz_execute_builder_query"
	// ToolFieldKeys lists attribute keys per signal.
	ToolFieldKeys = "signoz_get_field_keys"
	// ToolFieldValues lists the values of one key.
	ToolFieldValues = "signoz_get_field_values"
)

// Allowlist is every tool the sandbox may call: read-only ones only.
var Allowlist = []string{ToolQuery, ToolFieldKeys, ToolFieldValues}

// Errors of the backend.
var (
	ErrConfig     = errors.New("mcpbackend: invalid configuration")
	ErrNotAllowed = errors.New("mcpbackend: tool not allowlisted")
	ErrCatalogue  = errors.New("mcpbackend: the server does not offer the tool as expected")
	ErrArguments  = errors.New("mcpbackend: arguments do not match the tool's input schema")
)

// Config says how to reach the MCP server.
type Config struct {
	// Command and Args start the server as a subprocess speaking MCP on its
	// stdin and stdout. Exactly one of Command and URL is set.
	Command string
	Args    []string
	// URL is a streamable HTTP endpoint (e.g. http://localhost:8000/mcp).
	URL string
	// SigNozURL and APIKey are handed to the server: in the subprocess's
	// environment, or (HTTP) the key in a header.
	SigNozURL string
	APIKey    string
	// Auth is signoz.AuthHeader (SIGNOZ-API-KEY) or signoz.AuthBearer, for HTTP.
	Auth string
	// Timeout bounds each tool call (default 30 s).
	Timeout time.Duration
	// HTTP is the client for a URL server; nil means a default one.
	HTTP *http.Client
}

// Client calls a SigNoz MCP server. It connects on first use, reconnects
// after a transport failure, and is safe for concurrent use.
type Client struct {
	cfg Config

	mu      sync.Mutex
	session *mcp.ClientSession
	schemas map[string]*jsonschema.Schema
}

// New checks cfg; the connection is made on the first call.
func New(cfg Config) (*Client, error) {
	switch {
	case cfg.Command == "" && cfg.URL == "":
		return nil, fmt.Errorf("%w: set a command (stdio) or a URL (streamable HTTP)", ErrConfig)
	case cfg.Command != "" && cfg.URL != "":
		return nil, fmt.Errorf("%w: set a command or a URL, not both", ErrConfig)
	case cfg.APIKey == "":
		return nil, fmt.Errorf("%w: the SigNoz API key is required", ErrConfig)
	}
	if cfg.URL != "" {
		u, err := url.Parse(cfg.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("%w: MCP URL %q is not an http(s) URL", ErrConfig, cfg.URL)
		}
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	return &Client{cfg: cfg}, nil
}

// Close ends the session (and stops a subprocess).
func (c *Client) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.session == nil {
		return nil
	}
	err := c.session.Close()
	c.session = nil
	return err
}

// keyTransport adds the SigNoz key to every request to the MCP server.
type keyTransport struct {
	key, auth string
	next      http.RoundTripper
}

func (t keyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if t.auth == signoz.AuthBearer {
		r.Header.Set("Authorization", "Bearer "+t.key)
	} else {
		r.Header.Set("SIGNOZ-API-KEY", t.key)
	}
	next := t.next
	if next == nil {
		next = http.DefaultTransport
	}
	return next.RoundTrip(r)
}

func (c *Client) transport() mcp.Transport {
	if c.cfg.URL != "" {
		hc := &http.Client{}
		var next http.RoundTripper
		if c.cfg.HTTP != nil {
			next = c.cfg.HTTP.Transport
		}
		hc.Transport = keyTransport{key: c.cfg.APIKey, auth: c.cfg.Auth, next: next}
		return &mcp.StreamableClientTransport{Endpoint: c.cfg.URL, HTTPClient: hc, DisableStandaloneSSE: true}
	}
	cmd := exec.Command(c.cfg.Command, c.cfg.Args...)
	// Only what the server needs: the key never reaches other variables.
	cmd.Env = []string{"SIGNOZ_URL=" + c.cfg.SigNozURL, "SIGNOZ_API_KEY=" + c.cfg.APIKey}
	for _, k := range []string{"PATH", "HOME", "TMPDIR"} {
		if v, ok := os.LookupEnv(k); ok {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	return &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}
}

// connected returns the session, connecting and reading the server's tool
// catalogue first if needed.
func (c *Client) connected(ctx context.Context) (*mcp.ClientSession, map[string]*jsonschema.Schema, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.session != nil {
		return c.session, c.schemas, nil
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "agentk-sandbox", Version: "v1"}, nil)
	cs, err := client.Connect(ctx, c.transport(), nil)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: connect to the MCP server: %v", signoz.ErrUnavailable, err)
	}
	schemas, err := catalogue(ctx, cs)
	if err != nil {
		_ = cs.Close()
		return nil, nil, err
	}
	c.session, c.schemas = cs, schemas
	return cs, schemas, nil
}

// catalogue reads tools/list and compiles the input schema of every
// allowlisted tool the server offers as read-only.
func catalogue(ctx context.Context, cs *mcp.ClientSession) (map[string]*jsonschema.Schema, error) {
	out := map[string]*jsonschema.Schema{}
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("%w: list the MCP server's tools: %v", signoz.ErrUnavailable, err)
		}
		if !isAllowed(tool.Name) {
			continue
		}
		if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
			continue // never call a tool the server does not call read-only
		}
		raw, err := json.Marshal(tool.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: input schema: %v", ErrCatalogue, tool.Name, err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			return nil, fmt.Errorf("%w: %s: input schema: %v", ErrCatalogue, tool.Name, err)
		}
		comp := jsonschema.NewCompiler()
		loc := "mcp:///" + tool.Name + ".json"
		if err := comp.AddResource(loc, doc); err != nil {
			return nil, fmt.Errorf("%w: %s: input schema: %v", ErrCatalogue, tool.Name, err)
		}
		s, err := comp.Compile(loc)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: input schema: %v", ErrCatalogue, tool.Name, err)
		}
		out[tool.Name] = s
	}
	if out[ToolQuery] == nil {
		return nil, fmt.Errorf("%w: %s is not listed as a read-only tool", ErrCatalogue, ToolQuery)
	}
	return out, nil
}

func isAllowed(name string) bool {
	for _, a := range Allowlist {
		if a == name {
			return true
		}
	}
	return false
}

// reset drops a session that failed, so that the next call reconnects.
func (c *Client) reset(cs *mcp.ClientSession) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.session == cs {
		_ = cs.Close()
		c.session = nil
	}
}

// Call runs one allowlisted tool with args and returns its text. A tool
// error is an *signoz.APIError (its HTTP status recovered from the text when
// the server quotes SigNoz's), a transport failure signoz.ErrUnavailable.
func (c *Client) Call(ctx context.Context, name string, args map[string]any) (string, error) {
	if !mutant.Off(mutant.SandboxMCPAllowlist) {
		if !isAllowed(name) {
			return "", fmt.Errorf("%w: %s (allowed: %s)", ErrNotAllowed, name, strings.Join(Allowlist, ", "))
		}
	}
	var lastErr error
	for attempt := 0; attempt < 2; attempt++ {
		cs, schemas, err := c.connected(ctx)
		if err != nil {
			return "", err
		}
		schema := schemas[name]
		if schema == nil {
			return "", fmt.Errorf("%w: %s is not listed as a read-only tool", ErrCatalogue, name)
		}
		raw, err := json.Marshal(args)
		if err != nil {
			return "", fmt.Errorf("%w: %v", ErrArguments, err)
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			return "", fmt.Errorf("%w: %v", ErrArguments, err)
		}
		if err := schema.Validate(inst); err != nil {
			return "", fmt.Errorf("%w: %s: %v", ErrArguments, name, err)
		}
		cctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
		res, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(raw)})
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return "", fmt.Errorf("%w: %v", signoz.ErrUnavailable, err)
			}
			// A JSON-RPC error about the call itself is the server's answer;
			// anything else broke the session: reconnect once.
			if strings.Contains(err.Error(), "invalid params") {
				return "", &signoz.APIError{Code: "mcp_invalid_params", Message: err.Error()}
			}
			c.reset(cs)
			lastErr = fmt.Errorf("%w: MCP call %s: %v", signoz.ErrUnavailable, name, err)
			continue
		}
		text := resultText(res)
		if res.IsError {
			return "", toolError(name, text)
		}
		return text, nil
	}
	return "", lastErr
}

func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

var statusInText = regexp.MustCompile(`(?i)(?:status(?: code)?|HTTP)[ :=]*([1-5][0-9]{2})\b`)

// toolError turns a tool's error text into an APIError; a SigNoz status
// quoted in it (429, 5xx) keeps its retryable class.
func toolError(name, text string) error {
	e := &signoz.APIError{Code: "mcp_tool_error", Message: fmt.Sprintf("%s: %s", name, strings.TrimSpace(text))}
	if m := statusInText.FindStringSubmatch(text); m != nil {
		e.HTTPStatus, _ = strconv.Atoi(m[1])
	}
	// SigNoz's own error envelope, when the server passes it through.
	if i := strings.Index(text, `{"status":"error"`); i >= 0 {
		var env signoz.Envelope
		if json.NewDecoder(strings.NewReader(text[i:])).Decode(&env) == nil && env.Error != nil {
			e.Code, e.Message = env.Error.Code, name+": "+env.Error.Message
		}
	}
	if len(e.Message) > 2000 {
		e.Message = e.Message[:2000] + "…"
	}
	return e
}

// QueryRange runs a v5 query_range request through signoz_execute_builder_query
// and decodes SigNoz's answer, which the server returns as the tool's text.
func (c *Client) QueryRange(ctx context.Context, req signoz.QueryRangeRequest) (signoz.Result, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return signoz.Result{}, fmt.Errorf("mcpbackend: encode request: %w", err)
	}
	var query map[string]any
	if err := json.Unmarshal(b, &query); err != nil {
		return signoz.Result{}, fmt.Errorf("mcpbackend: encode request: %w", err)
	}
	text, err := c.Call(ctx, ToolQuery, map[string]any{
		"query":         query,
		"searchContext": searchContext,
	})
	if err != nil {
		return signoz.Result{}, err
	}
	body := []byte(text)
	r, err := signoz.Decode(body)
	if err != nil {
		return signoz.Result{}, err
	}
	return signoz.Result{Body: body, Response: r}, nil
}

const searchContext = "agentk sandbox: an allowlisted, bounded read-only query for an incident investigation"

// FieldKeys lists a signal's keys through signoz_get_field_keys.
func (c *Client) FieldKeys(ctx context.Context, signal, search string) (signoz.FieldsResult, error) {
	args := map[string]any{"signal": signal, "searchContext": searchContext}
	if search != "" {
		args["searchText"] = search
	}
	return c.fields(ctx, ToolFieldKeys, args)
}

// FieldValues lists one key's values through signoz_get_field_values.
func (c *Client) FieldValues(ctx context.Context, signal, name, search string) (signoz.FieldsResult, error) {
	args := map[string]any{"signal": signal, "name": name, "searchContext": searchContext}
	if search != "" {
		args["searchText"] = search
	}
	return c.fields(ctx, ToolFieldValues, args)
}

func (c *Client) fields(ctx context.Context, tool string, args map[string]any) (signoz.FieldsResult, error) {
	text, err := c.Call(ctx, tool, args)
	if err != nil {
		return signoz.FieldsResult{}, err
	}
	f, err := signoz.DecodeFields([]byte(text))
	if err != nil {
		return signoz.FieldsResult{}, err
	}
	return signoz.FieldsResult{Body: []byte(text), Fields: f}, nil
}
