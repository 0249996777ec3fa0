// Package httpport serves POST /v1/alerts: the webhook SigNoz's notification
// channel (and Alertmanager, and Grafana's Alertmanager-compatible contact
// points) posts to. A 2xx means every alert of the body is durable in
// JetStream; a 4xx names what is wrong with the request (and a retry of it
// would fail again); a 503 means only that the bus failed for now and the
// sender should retry.
package httpport

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"time"

	"agentk/contracts"
	"agentk/services/ingester/internal/incidents"
	"agentk/services/ingester/webhook"
)

// Path is where the webhook is served.
const Path = "/v1/alerts"

// Rejection reasons, the label of the rejected-alerts metric.
const (
	ReasonUnauthorized = "unauthorized"
	ReasonMethod       = "method"
	ReasonContentType  = "content_type"
	ReasonTooLarge     = "too_large"
	ReasonInvalid      = "invalid"
	ReasonUnavailable  = "bus_unavailable"
)

// Ingester files one normalised alert; *incidents.Index implements it.
type Ingester interface {
	Ingest(ctx context.Context, a contracts.AlertV1, now time.Time) (incidents.Result, error)
}

// Metrics counts what the handler saw. A nil Metrics counts nothing.
type Metrics interface {
	Received(ctx context.Context, n int)
	Rejected(ctx context.Context, reason string)
	Filed(ctx context.Context, o incidents.Outcome)
}

// Auth is the credential the sender must present. Empty fields are not
// accepted; an Auth with nothing set lets every request through (the
// local-only mode config allows only on loopback).
type Auth struct {
	Token         string
	BasicUser     string
	BasicPassword string
}

// Options configure the handler.
type Options struct {
	Auth    Auth
	MaxBody int64
	// Timeout bounds filing one body (KV and JetStream round trips).
	Timeout time.Duration
	Now     func() time.Time
	Logger  *slog.Logger
	Metrics Metrics
}

// Handler is the webhook endpoint.
type Handler struct {
	opt Options
	ing Ingester
}

// New returns the handler filing alerts through ing.
func New(ing Ingester, opt Options) *Handler {
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	if opt.Timeout <= 0 {
		opt.Timeout = 10 * time.Second
	}
	return &Handler{opt: opt, ing: ing}
}

// Filed is one alert's fate in the response body.
type Filed struct {
	IncidentID string `json:"incident_id"`
	Outcome    string `json:"outcome"`
	Service    string `json:"service,omitempty"`
}

// Response is the body of a 2xx.
type Response struct {
	Received int     `json:"received"`
	Alerts   []Filed `json:"alerts"`
}

// ErrorBody is the body of every 4xx and 5xx.
type ErrorBody struct {
	Error string `json:"error"`
	// Field names the offending field of the webhook body, when there is one.
	Field string `json:"field,omitempty"`
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func (h *Handler) reject(ctx context.Context, w http.ResponseWriter, code int, reason string, body ErrorBody) {
	if h.opt.Metrics != nil {
		h.opt.Metrics.Rejected(ctx, reason)
	}
	h.opt.Logger.WarnContext(ctx, "webhook rejected", "reason", reason, "status", code, "field", body.Field, "err", body.Error)
	writeJSON(w, code, body)
}

func same(a, b string) bool {
	// Hashing first makes the comparison constant-time in the length too.
	ha, hb := sha256.Sum256([]byte(a)), sha256.Sum256([]byte(b))
	return subtle.ConstantTimeCompare(ha[:], hb[:]) == 1
}

func (h *Handler) authorised(r *http.Request) bool {
	a := h.opt.Auth
	if a.Token == "" && a.BasicUser == "" {
		return true
	}
	ok := false
	if a.Token != "" {
		if v, found := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); found {
			ok = same(strings.TrimSpace(v), a.Token)
		}
	}
	if a.BasicUser != "" && a.BasicPassword != "" {
		if u, p, found := r.BasicAuth(); found {
			// Both comparisons run whatever the first says.
			uok, pok := same(u, a.BasicUser), same(p, a.BasicPassword)
			ok = ok || (uok && pok)
		}
	}
	return ok
}

// isJSON reports whether the Content-Type ct is application/json; the
// exact value senders send is matched without parsing.
func isJSON(ct string) bool {
	if ct == "application/json" {
		return true
	}
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "application/json"
}

// readBody reads the body r into one buffer of its declared length n (net/http
// ends the body there), instead of growing one from 512 bytes; an unknown
// length, or one over max (which the reader r refuses), is read as it comes.
func readBody(r io.Reader, n, max int64) ([]byte, error) {
	if n <= 0 || n > max {
		return io.ReadAll(r)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, err
	}
	return buf, nil
}

// ServeHTTP handles one delivery.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		h.reject(ctx, w, http.StatusMethodNotAllowed, ReasonMethod, ErrorBody{Error: "only POST is served here"})
		return
	}
	if !h.authorised(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="agentk", Basic realm="agentk"`)
		h.reject(ctx, w, http.StatusUnauthorized, ReasonUnauthorized, ErrorBody{Error: "missing or wrong credentials"})
		return
	}
	if !isJSON(r.Header.Get("Content-Type")) {
		h.reject(ctx, w, http.StatusUnsupportedMediaType, ReasonContentType, ErrorBody{Error: "Content-Type must be application/json"})
		return
	}
	body, err := readBody(http.MaxBytesReader(w, r.Body, h.opt.MaxBody), r.ContentLength, h.opt.MaxBody)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			h.reject(ctx, w, http.StatusRequestEntityTooLarge, ReasonTooLarge, ErrorBody{Error: "body larger than the configured limit"})
			return
		}
		h.reject(ctx, w, http.StatusBadRequest, ReasonInvalid, ErrorBody{Error: "could not read the body"})
		return
	}
	now := h.opt.Now()
	alerts, err := webhook.Parse(body, now)
	if err != nil {
		var fe *webhook.FieldError
		eb := ErrorBody{Error: err.Error()}
		if errors.As(err, &fe) {
			eb.Field = fe.Field
		}
		h.reject(ctx, w, http.StatusBadRequest, ReasonInvalid, eb)
		return
	}
	if h.opt.Metrics != nil {
		h.opt.Metrics.Received(ctx, len(alerts))
	}
	// Filing must finish even if the sender hangs up: a half-filed body
	// would otherwise wait for the retry to complete it.
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), h.opt.Timeout)
	defer cancel()
	resp := Response{Received: len(alerts), Alerts: make([]Filed, 0, len(alerts))}
	for _, a := range alerts {
		res, err := h.ing.Ingest(fctx, a, now)
		if err != nil && errors.Is(err, incidents.ErrRefused) {
			// Permanent: a retry would fail the same way, so it must not be
			// a 503. Parse's bounds make this unreachable in practice.
			h.opt.Logger.ErrorContext(ctx, "alert refused by the bus", "incident_id", a.IncidentID, "err", err)
			h.reject(ctx, w, http.StatusUnprocessableEntity, ReasonInvalid, ErrorBody{Error: err.Error()})
			return
		}
		if err != nil {
			h.opt.Logger.ErrorContext(ctx, "alert not filed: bus unavailable", "incident_id", a.IncidentID, "incident_service", a.Service, "err", err)
			w.Header().Set("Retry-After", "5")
			h.reject(ctx, w, http.StatusServiceUnavailable, ReasonUnavailable, ErrorBody{Error: "the alert could not be made durable; retry"})
			return
		}
		if h.opt.Metrics != nil {
			h.opt.Metrics.Filed(ctx, res.Outcome)
		}
		switch res.Outcome {
		case incidents.Opened, incidents.Queued, incidents.Resolved:
			h.opt.Logger.InfoContext(ctx, "incident "+string(res.Outcome), "incident_id", res.IncidentID, "incident_service", a.Service, "rule_id", a.RuleID)
		case incidents.TestAck:
			h.opt.Logger.InfoContext(ctx, "test notification acknowledged", "alert_name", a.AlertName)
		default:
			h.opt.Logger.DebugContext(ctx, "alert filed", "outcome", string(res.Outcome), "incident_id", res.IncidentID)
		}
		resp.Alerts = append(resp.Alerts, Filed{IncidentID: res.IncidentID, Outcome: string(res.Outcome), Service: a.Service})
	}
	writeResponse(w, resp)
}
