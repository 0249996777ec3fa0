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
	opts  Options
	store *store

	mu       sync.Mutex
	requests []RecordedRequest
}

// New returns a fake SigNoz serving inc's telemetry. inc may be nil: the fake
// then answers every query with no data.
func New(inc *incident.Incident, opts Options) *Server {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Version == "" {
		opts.Version = DefaultVersion
	}
	return &Server{opts: opts, store: newStore(inc)}
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
		rec.Status = s.route(w, r.Method, r.URL.Path, body, rec.Authenticated)
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

func (s *Server) route(w http.ResponseWriter, method, path string, body []byte, authed bool) int {
	type route struct {
		method string
		open   bool // SigNoz's OpenAccess routes need no key
		serve  func(http.ResponseWriter, []byte) int
	}
	routes := map[string]route{
		"/api/v5/query_range": {http.MethodPost, false, s.serveQueryRange},
		"/api/v1/services":    {http.MethodPost, false, s.serveServices},
		"/api/v1/version":     {http.MethodGet, true, s.serveVersion},
		"/api/v1/health":      {http.MethodGet, true, serveHealth},
	}
	rt, ok := routes[path]
	if !ok {
		if strings.HasPrefix(path, "/api/") {
			return writeError(w, notFound("fakesignoz: no route for %s", path))
		}
		if method != http.MethodGet && method != http.MethodHead {
			return writeError(w, methodNotAllowed(method, path))
		}
		return serveUI(w)
	}
	if method != rt.method {
		return writeError(w, methodNotAllowed(method, path))
	}
	if !rt.open && !authed {
		return writeError(w, unauthenticated())
	}
	return rt.serve(w, body)
}

func (s *Server) serveQueryRange(w http.ResponseWriter, body []byte) int {
	req, err := decodeQueryRange(body)
	if err != nil {
		return writeError(w, err)
	}
	resp, err := execute(req, s.store)
	if err != nil {
		return writeError(w, err)
	}
	return writeSuccess(w, resp)
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
