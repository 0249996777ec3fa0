// Package mcpserver is a small SigNoz MCP server for tests and replays,
// backed by a SigNoz HTTP API (the fake SigNoz): it stands in for the
// official signoz-mcp-server, which the module proxy does not serve.
//
// Its tools are the official server's (v0.13.0), loaded from tools.json, a
// byte-for-byte copy of that server's tools/list answer
// (../shared/signoz/mcp-server-tools.json): names, descriptions, annotations
// and input schemas cannot drift from the real ones. It serves the read-only
// subset below; arguments are validated against each tool's input schema, as
// a client calling the real server must satisfy them. The SigNoz key comes
// from Options.APIKey (stdio: the SIGNOZ_API_KEY the client set) or, when
// empty, from each HTTP request's SIGNOZ-API-KEY or Authorization: Bearer
// header, as the official server's HTTP mode takes it.
package mcpserver

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed tools.json
var catalogueJSON []byte

// Served are the tools this server implements, each as the fake SigNoz
// endpoint it calls.
var Served = []string{
	"signoz_execute_builder_query",
	"signoz_get_field_keys",
	"signoz_get_field_values",
	"signoz_list_services",
	"signoz_get_service_top_operations",
	"signoz_list_alerts",
	"signoz_get_alert",
	"signoz_list_metrics",
}

// Options configure the server.
type Options struct {
	// SigNozURL is the SigNoz API the tools call; an X-SigNoz-URL header
	// on an HTTP request overrides it, as on the official server. Empty:
	// every HTTP request must send one.
	SigNozURL string
	// APIKey is the SigNoz key; empty means: take it from each request's headers.
	APIKey string
	// Tools restricts the served tools (default Served); tests use it to
	// play a server that lacks one.
	Tools []string
	// Now is the clock relative time ranges are measured from (default time.Now).
	Now func() time.Time
	// HTTP calls SigNoz (default http.DefaultClient).
	HTTP *http.Client
}

// Tool is one entry of the catalogue.
type Tool struct {
	Name        string               `json:"name"`
	Description string               `json:"description"`
	Annotations *mcp.ToolAnnotations `json:"annotations"`
	InputSchema json.RawMessage      `json:"inputSchema"`
}

// Catalogue returns the official server's tools, as captured.
func Catalogue() ([]Tool, error) {
	var c struct {
		Tools []Tool `json:"tools"`
	}
	if err := json.Unmarshal(catalogueJSON, &c); err != nil {
		return nil, fmt.Errorf("mcpserver: tools.json: %w", err)
	}
	return c.Tools, nil
}

type server struct {
	opts Options
}

// New returns the MCP server.
func New(opts Options) (*mcp.Server, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.HTTP == nil {
		opts.HTTP = http.DefaultClient
	}
	if opts.Tools == nil {
		opts.Tools = Served
	}
	cat, err := Catalogue()
	if err != nil {
		return nil, err
	}
	byName := map[string]Tool{}
	for _, t := range cat {
		byName[t.Name] = t
	}
	s := &server{opts: opts}
	srv := mcp.NewServer(&mcp.Implementation{Name: "agentk-fake-signoz-mcp-server", Version: "v0.13.0-fake"}, nil)
	for _, name := range opts.Tools {
		t, ok := byName[name]
		if !ok {
			return nil, fmt.Errorf("mcpserver: tool %q is not in the official catalogue", name)
		}
		h, ok := s.handlers()[name]
		if !ok {
			return nil, fmt.Errorf("mcpserver: tool %q is not implemented", name)
		}
		schema, err := compile(name, t.InputSchema)
		if err != nil {
			return nil, err
		}
		srv.AddTool(&mcp.Tool{Name: t.Name, Description: t.Description, Annotations: t.Annotations, InputSchema: t.InputSchema},
			s.wrap(schema, h))
	}
	return srv, nil
}

func compile(name string, raw json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("mcpserver: %s: %w", name, err)
	}
	c := jsonschema.NewCompiler()
	loc := "mcp:///" + name + ".json"
	if err := c.AddResource(loc, doc); err != nil {
		return nil, fmt.Errorf("mcpserver: %s: %w", name, err)
	}
	return c.Compile(loc)
}

// args are a call's decoded arguments.
type args map[string]any

func (a args) str(k string) string {
	switch v := a[k].(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return ""
}

// call is one tool call: its arguments, the SigNoz key and the SigNoz URL
// it is for (X-SigNoz-URL, else Options.SigNozURL).
type call struct {
	args
	key, signoz string
}

// handler answers a call with its result: a payload, or a payload and
// notes (withNotes); an error is answered as the official server answers
// it (an *upstreamError as SigNoz's refusal, others as VALIDATION_FAILED).
type handler func(ctx context.Context, c call) (*mcp.CallToolResult, error)

// text is a handler whose answer is one text block.
func text(f func(ctx context.Context, c call) (string, error)) handler {
	return func(ctx context.Context, c call) (*mcp.CallToolResult, error) {
		t, err := f(ctx, c)
		if err != nil {
			return nil, err
		}
		return withNotes(t), nil
	}
}

func toolError(msg string) *mcp.CallToolResult {
	return errorResult("VALIDATION_FAILED", msg, nil)
}

func (s *server) wrap(schema *jsonschema.Schema, h handler) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		raw := req.Params.Arguments
		if len(raw) == 0 {
			raw = json.RawMessage(`{}`)
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			return toolError("invalid arguments: " + err.Error()), nil
		}
		if err := schema.Validate(inst); err != nil {
			return toolError("invalid arguments: " + err.Error()), nil
		}
		var a args
		if err := json.Unmarshal(raw, &a); err != nil {
			return toolError("invalid arguments: " + err.Error()), nil
		}
		c := call{args: a, key: s.opts.APIKey, signoz: s.opts.SigNozURL}
		if req.Extra != nil && req.Extra.Header != nil {
			if c.key == "" {
				c.key = req.Extra.Header.Get("SIGNOZ-API-KEY")
				if c.key == "" {
					c.key, _ = strings.CutPrefix(req.Extra.Header.Get("Authorization"), "Bearer ")
				}
			}
			// The official server's precedence: X-SigNoz-URL, then its own URL.
			if u := req.Extra.Header.Get("X-SigNoz-URL"); u != "" {
				c.signoz = strings.TrimRight(u, "/")
			}
		}
		if c.signoz == "" {
			return toolError("SigNoz instance URL is required: set SIGNOZ_URL or send the X-SigNoz-URL header"), nil
		}
		if c.key == "" {
			return errorResult("UNAUTHORIZED", "no SigNoz API key: set SIGNOZ_API_KEY or send the SIGNOZ-API-KEY header", nil), nil
		}
		res, err := h(ctx, c)
		var up *upstreamError
		switch {
		case errors.As(err, &up):
			return upstreamResult(up), nil
		case err != nil:
			return toolError(err.Error()), nil
		}
		return res, nil
	}
}

// do calls SigNoz and returns the body of a 200; another status is an
// error quoting it, as the official server reports them.
func (s *server) do(ctx context.Context, c call, method, path string, query url.Values, body any) (string, error) {
	u := strings.TrimRight(c.signoz, "/") + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return "", err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return "", err
	}
	req.Header.Set("SIGNOZ-API-KEY", c.key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.opts.HTTP.Do(req)
	if err != nil {
		return "", fmt.Errorf("request to SigNoz failed: %v", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return "", fmt.Errorf("read SigNoz response: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		return "", &upstreamError{status: resp.StatusCode, body: b}
	}
	return string(b), nil
}

// window reads start/end (unix ms) or timeRange (default def) relative to now.
func (s *server) window(a args, def string) (time.Time, time.Time, error) {
	now := s.opts.Now()
	ms := func(k string) (time.Time, bool, error) {
		v := a.str(k)
		if v == "" {
			return time.Time{}, false, nil
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return time.Time{}, false, fmt.Errorf("%s must be unix milliseconds, got %q", k, v)
		}
		return time.UnixMilli(n), true, nil
	}
	start, okS, err := ms("start")
	if err != nil {
		return start, start, err
	}
	end, okE, err := ms("end")
	if err != nil {
		return start, end, err
	}
	if okS && okE {
		return start, end, nil
	}
	tr := a.str("timeRange")
	if tr == "" {
		tr = def
	}
	d, err := parseRange(tr)
	if err != nil {
		return start, end, err
	}
	if !okE {
		end = now
	}
	if !okS {
		start = end.Add(-d)
	}
	return start, end, nil
}

func parseRange(s string) (time.Duration, error) {
	if len(s) < 2 {
		return 0, fmt.Errorf("invalid timeRange %q", s)
	}
	n, err := strconv.Atoi(s[:len(s)-1])
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("invalid timeRange %q", s)
	}
	switch s[len(s)-1] {
	case 'm':
		return time.Duration(n) * time.Minute, nil
	case 'h':
		return time.Duration(n) * time.Hour, nil
	case 'd':
		return time.Duration(n) * 24 * time.Hour, nil
	}
	return 0, fmt.Errorf("invalid timeRange %q: unit must be m, h or d", s)
}

func (s *server) handlers() map[string]handler {
	fieldQuery := func(a args, names ...string) url.Values {
		q := url.Values{}
		for _, k := range names {
			if v := a.str(k); v != "" {
				q.Set(k, v)
			}
		}
		return q
	}
	return map[string]handler{
		"signoz_execute_builder_query": s.builderQuery,
		"signoz_get_field_keys": text(func(ctx context.Context, c call) (string, error) {
			return s.do(ctx, c, http.MethodGet, "/api/v1/fields/keys", fieldQuery(c.args, "signal", "searchText", "fieldContext", "fieldDataType", "metricName", "source"), nil)
		}),
		"signoz_get_field_values": text(func(ctx context.Context, c call) (string, error) {
			return s.do(ctx, c, http.MethodGet, "/api/v1/fields/values", fieldQuery(c.args, "signal", "name", "searchText", "fieldContext", "metricName", "source"), nil)
		}),
		"signoz_list_services": s.listServices,
		"signoz_get_service_top_operations": text(func(ctx context.Context, c call) (string, error) {
			start, end, err := s.window(c.args, "6h")
			if err != nil {
				return "", err
			}
			body, err := s.do(ctx, c, http.MethodPost, "/api/v1/service/top_operations", nil, map[string]any{
				"start": strconv.FormatInt(start.UnixNano(), 10), "end": strconv.FormatInt(end.UnixNano(), 10),
				"service": c.str("service"), "tags": []any{}})
			if strings.TrimSpace(body) == "null" {
				body = "[]" // SigNoz's bare array, never null
			}
			return body, err
		}),
		"signoz_list_alerts": text(func(ctx context.Context, c call) (string, error) {
			return s.do(ctx, c, http.MethodGet, "/api/v1/alerts", nil, nil)
		}),
		// The official server answers a rule as structured content too (the
		// payload again, as its structuredResult does); a client reads the
		// text block.
		"signoz_get_alert": func(ctx context.Context, c call) (*mcp.CallToolResult, error) {
			id := c.str("id")
			if id == "" {
				return nil, errors.New("id is required")
			}
			body, err := s.do(ctx, c, http.MethodGet, "/api/v2/rules/"+url.PathEscape(id), nil, nil)
			if err != nil {
				return nil, err
			}
			return structured(withWebURL(body, c.signoz, id)), nil
		},
		"signoz_list_metrics": text(func(ctx context.Context, c call) (string, error) {
			start, end, err := s.window(c.args, "1h")
			if err != nil {
				return "", err
			}
			q := fieldQuery(c.args, "searchText", "source", "limit")
			q.Set("start", strconv.FormatInt(start.UnixMilli(), 10))
			q.Set("end", strconv.FormatInt(end.UnixMilli(), 10))
			return s.do(ctx, c, http.MethodGet, "/api/v2/metrics", q, nil)
		}),
	}
}

// builderQuery runs one query_range request as the official server does:
// no default time range, its limit and order filled in where missing (and
// a "[Decisions applied]" note saying so), SigNoz's body verbatim as the
// payload, and SigNoz's non-fatal warnings as a note after it.
func (s *server) builderQuery(ctx context.Context, c call) (*mcp.CallToolResult, error) {
	q, ok := c.args["query"].(map[string]any)
	if !ok {
		return toolError(`Parameter validation failed: "query" must be a JSON object`), nil
	}
	if start, _ := q["start"].(float64); start == 0 {
		return toolError("query validation error: missing start or end timestamp"), nil
	}
	if end, _ := q["end"].(float64); end == 0 {
		return toolError("query validation error: missing start or end timestamp"), nil
	}
	decisions, err := applyBounds(q)
	if err != nil {
		return toolError("query validation error: " + err.Error()), nil
	}
	body, err := s.do(ctx, c, http.MethodPost, "/api/v5/query_range", nil, q)
	if err != nil {
		return nil, err
	}
	return withNotes(body, decisions, warningsNote(body)), nil
}

// listServices is SigNoz's service list wrapped and paged as the official
// server answers it, also as structuredContent.
func (s *server) listServices(ctx context.Context, c call) (*mcp.CallToolResult, error) {
	start, end, err := s.window(c.args, "6h")
	if err != nil {
		return nil, err
	}
	limit, offset := 50, 0
	if n, err := strconv.Atoi(c.str("limit")); err == nil && n > 0 {
		limit = min(n, 1000)
	}
	if n, err := strconv.Atoi(c.str("offset")); err == nil && n >= 0 {
		offset = n
	}
	body, err := s.do(ctx, c, http.MethodPost, "/api/v1/services", nil, map[string]string{
		"start": strconv.FormatInt(start.UnixNano(), 10), "end": strconv.FormatInt(end.UnixNano(), 10)})
	if err != nil {
		return nil, err
	}
	payload, structured, err := wrapServices(body, c.signoz, limit, offset)
	if err != nil {
		return nil, err
	}
	res := withNotes(payload)
	res.StructuredContent = structured
	return res, nil
}

// HTTPHandler serves srv over streamable HTTP (stateless sessions are not
// needed: the SDK keeps one per client).
func HTTPHandler(srv *mcp.Server) http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
}

// withWebURL adds the deep link the official server (v0.13.0,
// util.InjectWebURL) adds to a rule: webUrl in data (in the envelope when
// data is not an object), both levels re-encoded with their keys in order.
func withWebURL(body, base, id string) string {
	var env map[string]json.RawMessage
	if json.Unmarshal([]byte(body), &env) != nil || env == nil {
		return body
	}
	link, _ := json.Marshal(strings.TrimRight(base, "/") + "/alerts/overview?" + url.Values{"ruleId": {id}}.Encode())
	var data map[string]json.RawMessage
	if json.Unmarshal(env["data"], &data) == nil && data != nil {
		data["webUrl"] = link
		env["data"], _ = json.Marshal(data)
	} else {
		env["webUrl"] = link
	}
	out, err := json.Marshal(env)
	if err != nil {
		return body
	}
	return string(out)
}

// structured is payload as one text block and, when it is JSON, as
// structuredContent too (numbers kept as written).
func structured(payload string) *mcp.CallToolResult {
	res := withNotes(payload)
	dec := json.NewDecoder(strings.NewReader(payload))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) == nil {
		res.StructuredContent = v
	}
	return res
}
