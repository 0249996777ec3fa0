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
	"io"
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
	"agentk/platform/wait"
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
	// ToolGetAlert reads one alert rule's definition (GET /api/v2/rules/{id}).
	ToolGetAlert = "signoz_get_alert"
)

// Allowlist is every tool the sandbox may call: read-only ones only.
var Allowlist = []string{ToolQuery, ToolFieldKeys, ToolFieldValues, ToolGetAlert}

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
	// Env names further variables of the sandbox's own environment a
	// subprocess gets (SIGNOZ_CUSTOM_HEADERS, HTTPS_PROXY, SSL_CERT_FILE, …);
	// nothing else of it is passed on.
	Env []string
	// Attempts is the number of tries of a rate-limited call (default 3),
	// both a tool result saying SigNoz answered 429 and an HTTP 429 from the
	// MCP server itself.
	Attempts int
	// Backoff is the first wait before another try, doubled each time
	// (default 500 ms); a wait the server asked for (Retry-After, SigNoz's
	// retry delay) replaces it. No wait is longer than MaxBackoff (10 s).
	Backoff    time.Duration
	MaxBackoff time.Duration
	// Wait waits d or until ctx is done; tests replace it.
	Wait func(ctx context.Context, d time.Duration) error
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
	for _, k := range cfg.Env {
		if !envName.MatchString(k) || reserved[k] || strings.HasPrefix(strings.ToUpper(k), "AGENTK_") {
			return nil, fmt.Errorf("%w: %q cannot be passed to the MCP server (a variable name, not SIGNOZ_URL, SIGNOZ_API_KEY or agentk's own)", ErrConfig, k)
		}
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	if cfg.Attempts <= 0 {
		cfg.Attempts = 3
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = 500 * time.Millisecond
	}
	if cfg.MaxBackoff <= 0 {
		cfg.MaxBackoff = 10 * time.Second
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

var (
	envName  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	reserved = map[string]bool{"SIGNOZ_URL": true, "SIGNOZ_API_KEY": true}
)

// keyTransport adds the SigNoz key and URL to every request to the MCP
// server (the official server takes both per request: SIGNOZ-API-KEY or
// Authorization, and X-SigNoz-URL before its own SIGNOZ_URL), and tries a
// request the server refused with 429 again after its Retry-After.
type keyTransport struct {
	key, auth, signozURL string
	next                 http.RoundTripper
	c                    *Client
}

func (t keyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if t.auth == signoz.AuthBearer {
		r.Header.Set("Authorization", "Bearer "+t.key)
	} else {
		r.Header.Set("SIGNOZ-API-KEY", t.key)
	}
	if t.signozURL != "" {
		r.Header.Set("X-SigNoz-URL", t.signozURL)
	}
	next := t.next
	if next == nil {
		next = http.DefaultTransport
	}
	for try := 1; ; try++ {
		resp, err := next.RoundTrip(r)
		if err != nil || resp.StatusCode != http.StatusTooManyRequests || try >= t.c.cfg.Attempts || (r.Body != nil && r.GetBody == nil) {
			return resp, err
		}
		d := min(retryAfter(resp.Header.Get("Retry-After"), t.c.cfg.Backoff<<(try-1)), t.c.cfg.MaxBackoff)
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		_ = resp.Body.Close()
		if werr := t.c.wait(r.Context(), d); werr != nil {
			return nil, werr
		}
		if r.GetBody != nil {
			body, err := r.GetBody()
			if err != nil {
				return nil, err
			}
			r.Body = body
		}
	}
}

// retryAfter reads a Retry-After header (seconds, or an HTTP date); def
// when it says nothing usable.
func retryAfter(v string, def time.Duration) time.Duration {
	v = strings.TrimSpace(v)
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return d
		}
		return 0
	}
	return def
}

func (c *Client) transport() mcp.Transport {
	if c.cfg.URL != "" {
		hc := &http.Client{}
		var next http.RoundTripper
		if c.cfg.HTTP != nil {
			next = c.cfg.HTTP.Transport
		}
		hc.Transport = keyTransport{key: c.cfg.APIKey, auth: c.cfg.Auth, signozURL: c.cfg.SigNozURL, next: next, c: c}
		return &mcp.StreamableClientTransport{Endpoint: c.cfg.URL, HTTPClient: hc, DisableStandaloneSSE: true}
	}
	cmd := exec.Command(c.cfg.Command, c.cfg.Args...)
	cmd.Env = childEnv(c.cfg, os.LookupEnv)
	return &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}
}

// childEnv is a subprocess server's whole environment: only what the server
// needs, and the variables the operator declared (Config.Env), read through
// lookup. The key never reaches other variables, and the rest of the
// sandbox's environment never reaches the server.
func childEnv(cfg Config, lookup func(string) (string, bool)) []string {
	env := []string{"SIGNOZ_URL=" + cfg.SigNozURL, "SIGNOZ_API_KEY=" + cfg.APIKey}
	if mutant.Off(mutant.SandboxMCPChildEnv) {
		return append(env, os.Environ()...)
	}
	for _, k := range append([]string{"PATH", "HOME", "TMPDIR"}, cfg.Env...) {
		if v, ok := lookup(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
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

// Call runs one allowlisted tool with args and returns its decoded result
// (Decode). A tool error is a *ToolError (an *signoz.APIError: 429 and 5xx
// retryable), a transport failure signoz.ErrUnavailable. A rate-limited call
// (SigNoz's 429 passed on by the server) is tried again after the wait
// SigNoz asked for, or an exponential backoff, at most Attempts times and
// never longer than MaxBackoff at once; a broken session is reconnected once.
func (c *Client) Call(ctx context.Context, name string, args map[string]any) (Reply, error) {
	if !mutant.Off(mutant.SandboxMCPAllowlist) {
		if !isAllowed(name) {
			return Reply{}, fmt.Errorf("%w: %s (allowed: %s)", ErrNotAllowed, name, strings.Join(Allowlist, ", "))
		}
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return Reply{}, fmt.Errorf("%w: %v", ErrArguments, err)
	}
	reconnected := false
	for try := 1; ; try++ {
		res, err := c.callOnce(ctx, name, raw)
		if errors.Is(err, errSession) && !reconnected {
			reconnected = true
			continue
		}
		if err != nil {
			return Reply{}, err
		}
		reply, err := Decode(name, res)
		d, limited := c.rateLimited(err, try)
		if !limited {
			return reply, err
		}
		if werr := c.wait(ctx, d); werr != nil {
			return Reply{}, err
		}
	}
}

// errSession marks a call that failed because the session broke.
var errSession = errors.New("mcpbackend: session failed")

// callOnce validates raw against the tool's schema and calls it once.
func (c *Client) callOnce(ctx context.Context, name string, raw []byte) (*mcp.CallToolResult, error) {
	cs, schemas, err := c.connected(ctx)
	if err != nil {
		return nil, err
	}
	schema := schemas[name]
	if schema == nil {
		return nil, fmt.Errorf("%w: %s is not listed as a read-only tool", ErrCatalogue, name)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrArguments, err)
	}
	if err := schema.Validate(inst); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrArguments, name, err)
	}
	cctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	res, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(raw)})
	cancel()
	if err == nil {
		return res, nil
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("%w: %v", signoz.ErrUnavailable, err)
	}
	// A JSON-RPC error about the call itself is the server's answer;
	// anything else broke the session: the caller reconnects once.
	if answer := rpcError(name, err); answer != nil {
		return nil, answer
	}
	c.reset(cs)
	return nil, fmt.Errorf("%w: %w: MCP call %s: %v", errSession, signoz.ErrUnavailable, name, err)
}

// rateLimited says whether err is a 429 worth another try (try is the
// number of tries made) and how long to wait first.
func (c *Client) rateLimited(err error, try int) (time.Duration, bool) {
	var te *ToolError
	if !errors.As(err, &te) || te.HTTPStatus != http.StatusTooManyRequests || try >= c.cfg.Attempts {
		return 0, false
	}
	d := c.cfg.Backoff << (try - 1)
	if te.RetryAfter > 0 {
		d = te.RetryAfter
	}
	return min(d, c.cfg.MaxBackoff), true
}

func (c *Client) wait(ctx context.Context, d time.Duration) error {
	if c.cfg.Wait != nil {
		return c.cfg.Wait(ctx, d)
	}
	return wait.Sleep(ctx, d)
}

// QueryRange runs a v5 query_range request through signoz_execute_builder_query
// and decodes SigNoz's answer, the result's first text block; the server's
// notes about it come back in Result.Notes.
func (c *Client) QueryRange(ctx context.Context, req signoz.QueryRangeRequest) (signoz.Result, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return signoz.Result{}, fmt.Errorf("mcpbackend: encode request: %w", err)
	}
	var query map[string]any
	if err := json.Unmarshal(b, &query); err != nil {
		return signoz.Result{}, fmt.Errorf("mcpbackend: encode request: %w", err)
	}
	reply, err := c.Call(ctx, ToolQuery, map[string]any{
		"query":         query,
		"searchContext": searchContext,
	})
	if err != nil {
		return signoz.Result{}, err
	}
	r, err := signoz.Decode(reply.Payload)
	if err != nil {
		return signoz.Result{}, err
	}
	return signoz.Result{Body: reply.Payload, Response: r, Notes: reply.Notes}, nil
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
	reply, err := c.Call(ctx, tool, args)
	if err != nil {
		return signoz.FieldsResult{}, err
	}
	f, err := signoz.DecodeFields(reply.Payload)
	if err != nil {
		return signoz.FieldsResult{}, err
	}
	return signoz.FieldsResult{Body: reply.Payload, Fields: f}, nil
}

// Rule reads the alert rule id through signoz_get_alert: SigNoz's body of
// GET /api/v2/rules/{id} as the result's first text block, in the form both
// routes hash (signoz.RuleBody: the official server adds a webUrl to it).
func (c *Client) Rule(ctx context.Context, id string) (signoz.RuleResult, error) {
	reply, err := c.Call(ctx, ToolGetAlert, map[string]any{"id": id, "searchContext": searchContext})
	if err != nil {
		return signoz.RuleResult{}, err
	}
	return signoz.RuleResult{Body: signoz.RuleBody(reply.Payload)}, nil
}
