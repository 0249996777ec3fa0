// Package httpport serves the bridge's HTTP side: Slack's interactivity
// endpoint, the web console for approvers, and the JSON API the CLI uses.
package httpport

import (
	"context"
	"crypto/rand"
	"html/template"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"agentk/services/bridge/internal/approval"
	"agentk/services/bridge/internal/desk"
	"agentk/services/bridge/internal/freezes"
	"agentk/services/bridge/internal/slackauth"
	"agentk/services/bridge/internal/view"
)

// Responder answers Slack interactions through their response_url.
type Responder interface {
	Replace(ctx context.Context, responseURL string, rec approval.Record) error
	Tell(ctx context.Context, responseURL, text string) error
}

// Reports renders an incident's report for the console. Optional.
type Reports interface {
	// HTML returns the report page body for incidentID, or an error when it
	// has none.
	HTML(ctx context.Context, incidentID string) (template.HTML, error)
}

// Options configure a Server.
type Options struct {
	Desk      *desk.Desk
	Approvers approval.Approvers
	// SigningSecret is Slack's; empty disables /slack/interactions (404).
	SigningSecret string
	// Slack is nil when Slack is not configured.
	Slack   Responder
	Reports Reports
	// Freezes sets and lifts freezes; nil answers 503.
	Freezes *freezes.Desk
	// DeadLetters lists the dead-letter stream for /console/deadletters;
	// nil answers 503.
	DeadLetters     DeadLetters
	InsecureCookies bool
	Now             func() time.Time
	Logger          *slog.Logger
	// Links returns the SigNoz links to show with a record; none when nil.
	Links func(approval.Record) view.Links
}

// Server is the bridge's HTTP handler. Close waits for its background work.
type Server struct {
	o      Options
	replay *slackauth.ReplayCache
	csrf   []byte

	mu       sync.Mutex
	sessions map[string]session

	bg       sync.WaitGroup
	bgCtx    context.Context
	bgCancel context.CancelFunc
}

// New returns a Server.
func New(o Options) *Server {
	s := &Server{o: o, replay: slackauth.NewReplayCache(), sessions: map[string]session{}, csrf: make([]byte, 32)}
	_, _ = rand.Read(s.csrf)
	s.bgCtx, s.bgCancel = context.WithCancel(context.Background())
	return s
}

// Handler returns the routes.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /slack/interactions", s.interactions)
	mux.HandleFunc("GET /console", s.consoleList)
	mux.HandleFunc("GET /console/{$}", s.consoleList)
	mux.HandleFunc("GET /console/login", s.loginForm)
	mux.HandleFunc("POST /console/login", s.login)
	mux.HandleFunc("POST /console/logout", s.logout)
	mux.HandleFunc("GET /console/incidents/{id}", s.consoleIncident)
	mux.HandleFunc("GET /console/deadletters", s.consoleDeadLetters)
	mux.HandleFunc("POST /console/decisions/{id}", s.consoleAnswer)
	mux.HandleFunc("GET /api/v1/decisions", s.apiList)
	mux.HandleFunc("POST /api/v1/decisions/{id}/answer", s.apiAnswer)
	mux.HandleFunc("GET /api/v1/freezes", s.apiFreezes)
	mux.HandleFunc("POST /api/v1/freezes", s.apiFreeze(false))
	mux.HandleFunc("POST /api/v1/freezes/{scope}/lift", s.apiFreeze(true))
	mux.HandleFunc("POST /console/freezes", s.consoleFreeze)
	return secureHeaders(mux)
}

// Close waits for background responses to Slack, cancelling them after ctx.
func (s *Server) Close(ctx context.Context) {
	done := make(chan struct{})
	go func() { s.bg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		s.bgCancel()
		<-done
	}
	s.bgCancel()
}

// background runs f after the response is written, bounded to 10 s.
func (s *Server) background(f func(ctx context.Context)) {
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		ctx, cancel := context.WithTimeout(s.bgCtx, 10*time.Second)
		defer cancel()
		f(ctx)
	}()
}

func secureHeaders(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("X-Frame-Options", "DENY")
		w.Header().Set("Referrer-Policy", "same-origin")
		w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'")
		w.Header().Set("Cache-Control", "no-store")
		h.ServeHTTP(w, r)
	})
}
