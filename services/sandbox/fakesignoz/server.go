// Package fakesignoz is a fake SigNoz for tests, end-to-end runs and the
// demo. It serves one recorded incident's spans and logs through SigNoz's v5
// query API (POST /api/v5/query_range) in SigNoz's exact response envelopes,
// checks the API key like SigNoz does, answers /api/v1/version,
// /api/v1/health and the legacy /api/v1/services, and, like SigNoz's
// single-page UI, answers 200 to every other GET.
//
// Whatever it does not understand (an unknown field, query type, filter
// operator or aggregation) gets SigNoz's error envelope and a 400, so that a
// client drifting away from the shapes the fake knows fails loudly.
package fakesignoz

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"agentk/contracts/incident"
)

// DefaultVersion is the SigNoz version the fake reports.
const DefaultVersion = "v0.138.0"

// Options configure a Server.
type Options struct {
	// APIKey is the key every API request must carry in the SIGNOZ-API-KEY
	// header (or as "Authorization: Bearer <key>"). An empty APIKey accepts
	// no request: the fake never runs open.
	APIKey string
	// Now is the clock; nil means time.Now. It only stamps recorded requests:
	// answers depend on the request's time range, never on the clock.
	Now func() time.Time
	// Version is what /api/v1/version reports; empty means DefaultVersion.
	Version string
	// ReplayNow is the replay clock (the incident's now, advancing). When set,
	// a request window that ends at the wall clock's now (Now, within
	// relativeSlack) is a relative range such as "the last hour", as the
	// SigNoz MCP server computes from its own clock: the fake measures it
	// from the replay clock instead and says so in a warning. nil: windows
	// are taken as written.
	ReplayNow func() time.Time
}

// RecordedRequest is one request the fake received. The API key is never
// recorded, only whether the request was authenticated.
type RecordedRequest struct {
	At            time.Time
	Method        string
	Path          string
	Query         string
	Body          []byte
	Authenticated bool
	Status        int
}

// Server is the fake SigNoz. It is an http.Handler and safe for concurrent use.
type Server struct {
	opts    Options
	store   *store
	answers *answers // shared with every Server of the same Telemetry
	inc     *incident.Incident

	mu       sync.Mutex
	requests []RecordedRequest
}

// New returns a fake SigNoz serving inc's telemetry. inc may be nil: the fake
// then answers every query with no data. It flattens and indexes the
// telemetry first; servers of one incident that run one after the other or
// side by side share that work through NewTelemetry and Telemetry.Server.
func New(inc *incident.Incident, opts Options) *Server {
	return NewTelemetry(inc).Server(opts)
}

// Telemetry is an incident's telemetry flattened and indexed for queries,
// and the query answers given so far (answers). It is read-only once built
// but for those caches, which hold their own locks, so any number of
// Servers, one after the other or at once, may serve it: an eval builds it
// once per incident folder and shares it across its investigators and
// replays.
type Telemetry struct {
	inc     *incident.Incident
	store   *store
	answers *answers
}

// NewTelemetry flattens and indexes inc's telemetry. inc may be nil: no data.
func NewTelemetry(inc *incident.Incident) *Telemetry {
	return &Telemetry{inc: inc, store: newStore(inc), answers: &answers{}}
}

// Server returns a fake SigNoz serving t, with its own key, clocks and
// record of requests.
func (t *Telemetry) Server(opts Options) *Server {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Version == "" {
		opts.Version = DefaultVersion
	}
	return &Server{opts: opts, store: t.store, answers: t.answers, inc: t.inc}
}

// Requests returns a copy of every request received so far, oldest first.
func (s *Server) Requests() []RecordedRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]RecordedRequest, len(s.requests))
	copy(out, s.requests)
	return out
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBytes+1))
	rec := RecordedRequest{
		At:            s.opts.Now(),
		Method:        r.Method,
		Path:          r.URL.Path,
		Query:         r.URL.RawQuery,
		Body:          body,
		Authenticated: s.authenticated(r),
	}
	switch {
	case err != nil:
		rec.Status = writeError(w, invalidInput("failed to read request body: %v", err))
	case len(body) > maxRequestBytes:
		rec.Status = writeError(w, invalidInput("request body larger than %d bytes", maxRequestBytes))
	default:
		rec.Status = s.route(w, r, body, rec.Authenticated)
	}
	s.mu.Lock()
	s.requests = append(s.requests, rec)
	s.mu.Unlock()
}

// authenticated reports whether the request carries the configured key,
// compared in constant time.
func (s *Server) authenticated(r *http.Request) bool {
	if s.opts.APIKey == "" {
		return false
	}
	key := r.Header.Get("SIGNOZ-API-KEY")
	if key == "" {
		if v, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
			key = v
		}
	}
	return constantTimeEqual(key, s.opts.APIKey)
}

// call is one routed request: its query string, body and path parameters.
type call struct {
	query  url.Values
	body   []byte
	params map[string]string
}

// handler answers one routed request and returns the status written.
type handler func(http.ResponseWriter, call) int

// routeEntry is one route: pattern segments in braces ({id}) match any one
// non-empty path segment.
type routeEntry struct {
	method  string
	pattern string
	open    bool // SigNoz's OpenAccess routes need no key
	serve   handler
}

func (s *Server) routes() []routeEntry {
	body := func(f func(http.ResponseWriter, []byte) int) handler {
		return func(w http.ResponseWriter, c call) int { return f(w, c.body) }
	}
	return []routeEntry{
		{http.MethodPost, "/api/v5/query_range", false, body(s.serveQueryRange)},
		{http.MethodPost, "/api/v1/services", false, body(s.serveServices)},
		{http.MethodGet, "/api/v1/version", true, body(s.serveVersion)},
		{http.MethodGet, "/api/v1/health", true, body(serveHealth)},
		{http.MethodGet, "/api/v1/fields/keys", false, s.serveFieldKeys},
		{http.MethodGet, "/api/v1/fields/values", false, s.serveFieldValues},
		{http.MethodPost, "/api/v1/service/top_operations", false, s.serveTopOperations},
		{http.MethodGet, "/api/v1/alerts", false, s.serveAlerts},
		{http.MethodGet, "/api/v2/rules", false, s.serveRules},
		{http.MethodGet, "/api/v2/rules/{id}", false, s.serveRule},
		{http.MethodGet, "/api/v2/rules/{id}/history/timeline", false, s.serveRuleTimeline},
		{http.MethodGet, "/api/v2/metrics", false, s.serveMetricsList},
		{http.MethodGet, "/api/v2/dashboards", false, serveDashboards},
		{http.MethodGet, "/api/v1/stats", false, s.serveStats},
		{http.MethodGet, "/api/v1/explorer/views", false, serveViews},
		{http.MethodGet, "/api/v1/channels", false, serveChannels},
		{http.MethodGet, "/api/v1/channels/{id}", false, notFoundByID("channel")},
		{http.MethodGet, "/api/v2/dashboards/{id}", false, notFoundByID("dashboard")},
		{http.MethodGet, "/api/v1/explorer/views/{id}", false, notFoundByID("view")},
		{http.MethodPost, "/api/v2/metrics/treemap", false, s.serveTreemap},
		{http.MethodGet, "/api/v2/metrics/attributes", false, s.serveMetricAttributes},
	}
}

// matchRoute matches path against a pattern, returning its parameters.
func matchRoute(pattern, path string) (map[string]string, bool) {
	ps, xs := strings.Split(pattern, "/"), strings.Split(path, "/")
	if len(ps) != len(xs) {
		return nil, false
	}
	params := map[string]string{}
	for i, p := range ps {
		if strings.HasPrefix(p, "{") && strings.HasSuffix(p, "}") {
			if xs[i] == "" {
				return nil, false
			}
			params[p[1:len(p)-1]] = xs[i]
			continue
		}
		if p != xs[i] {
			return nil, false
		}
	}
	return params, true
}

func (s *Server) route(w http.ResponseWriter, r *http.Request, body []byte, authed bool) int {
	method, path := r.Method, r.URL.Path
	var (
		rt      *routeEntry
		params  map[string]string
		methods []string
	)
	for _, e := range s.routes() {
		p, ok := matchRoute(e.pattern, path)
		if !ok {
			continue
		}
		methods = append(methods, e.method)
		if e.method == method {
			rt, params = &e, p
			break
		}
	}
	if rt == nil {
		if len(methods) > 0 {
			return writeError(w, methodNotAllowed(method, path))
		}
		if strings.HasPrefix(path, "/api/") {
			return writeError(w, notFound("fakesignoz: no route for %s %s (fakesignoz serves a subset of SigNoz's read API; see services/sandbox/fakesignoz/README.md)", method, path))
		}
		if method != http.MethodGet && method != http.MethodHead {
			return writeError(w, methodNotAllowed(method, path))
		}
		return serveUI(w)
	}
	if !rt.open && !authed {
		return writeError(w, unauthenticated())
	}
	return rt.serve(w, call{query: r.URL.Query(), body: body, params: params})
}

func (s *Server) serveQueryRange(w http.ResponseWriter, body []byte) int {
	if kept, ok := s.answers.lookup(body, s.window); ok {
		return writeKept(w, kept)
	}
	req, err := decodeQueryRange(body)
	if err != nil {
		return writeError(w, err)
	}
	s.answers.remember(body, req.Start, req.End)
	var shifted string
	req.Start, req.End, shifted = s.window(req.Start, req.End)
	return s.answers.serve(w, body, req, func() (*queryRangeResponse, *apiError) {
		resp, err := execute(req, s.store)
		if err != nil {
			return nil, err
		}
		resp.addWarning(shifted)
		resp.addWarning(s.store.emptyWindowHint(req.Start, req.End))
		return resp, nil
	})
}

// versionResponse is SigNoz's GetVersionResponse, written without an envelope.
type versionResponse struct {
	Version        string `json:"version"`
	EE             string `json:"ee"`
	SetupCompleted bool   `json:"setupCompleted"`
}

func (s *Server) serveVersion(w http.ResponseWriter, _ []byte) int {
	return writeJSON(w, http.StatusOK, versionResponse{Version: s.opts.Version, EE: "Y", SetupCompleted: true})
}

func serveHealth(w http.ResponseWriter, _ []byte) int {
	return writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// uiPage stands in for SigNoz's single-page app: every UI path gets it with a
// 200, which is why links must be checked against the route table.
const uiPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>SigNoz (fake)</title></head>
<body><div id="root">fakesignoz: a single-page app answers 200 to every path</div></body></html>
`

func serveUI(w http.ResponseWriter) int {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = io.Copy(w, bytes.NewReader([]byte(uiPage)))
	return http.StatusOK
}
