package httpport

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"agentk/contracts"
	"agentk/services/bridge/internal/approval"
)

// AnswerRequest is the body of POST /api/v1/decisions/{id}/answer.
type AnswerRequest struct {
	Answer string `json:"answer"`
	// Digest, when set, must be the digest of the decision being answered.
	Digest string `json:"digest,omitempty"`
	// ResolvedSeen, when the alert resolved, must be the resolve time the
	// caller was shown (DecisionSummary.ResolvedAt): an approval without it
	// is refused once the alert resolved.
	ResolvedSeen time.Time `json:"resolved_seen,omitzero"`
}

// AnswerResponse is its success body.
type AnswerResponse struct {
	DecisionID string `json:"decision_id"`
	ApprovalID string `json:"approval_id"`
	Answer     string `json:"answer"`
	Approver   string `json:"approver"`
}

// ErrorResponse is every API error body.
type ErrorResponse struct {
	Error string `json:"error"`
}

// DecisionSummary is one entry of GET /api/v1/decisions.
type DecisionSummary struct {
	DecisionID     string          `json:"decision_id"`
	IncidentID     string          `json:"incident_id"`
	Service        string          `json:"service"`
	Verdict        string          `json:"verdict"`
	Status         approval.Status `json:"status"`
	RollbackTarget string          `json:"rollback_target,omitempty"`
	Digest         string          `json:"digest"`
	ExpiresAt      time.Time       `json:"expires_at"`
	Answer         string          `json:"answer,omitempty"`
	Approver       string          `json:"approver,omitempty"`
	// ResolvedAt is when the incident's alert resolved; zero while it fires.
	ResolvedAt time.Time `json:"resolved_at,omitzero"`
}

func (s *Server) bearer(w http.ResponseWriter, r *http.Request) (string, bool) {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	name, known := s.o.Approvers.ByToken(strings.TrimSpace(tok))
	if !ok || !known {
		w.Header().Set("WWW-Authenticate", `Bearer realm="agentk"`)
		apiError(w, http.StatusUnauthorized, "a valid approver token is required")
		return "", false
	}
	return name, true
}

func (s *Server) apiList(w http.ResponseWriter, r *http.Request) {
	if _, ok := s.bearer(w, r); !ok {
		return
	}
	recs, err := s.o.Desk.List(r.Context())
	if err != nil {
		apiError(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	now := s.o.Now()
	out := make([]DecisionSummary, 0, len(recs))
	for _, rec := range recs {
		d := DecisionSummary{
			DecisionID: rec.DecisionID, IncidentID: rec.Decision.IncidentID, Service: rec.Decision.Service,
			Verdict: rec.Decision.Verdict, Status: rec.StatusAt(now), RollbackTarget: rec.Decision.RollbackTarget,
			Digest: rec.Digest, ExpiresAt: rec.ExpiresAt,
		}
		if a := rec.Answer; a != nil {
			d.Answer, d.Approver = a.Answer, a.Approver
		}
		if at, err := s.o.Desk.ResolvedAt(r.Context(), rec.Decision.IncidentID); err == nil {
			d.ResolvedAt = at
		}
		out = append(out, d)
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) apiAnswer(w http.ResponseWriter, r *http.Request) {
	name, ok := s.bearer(w, r)
	if !ok {
		return
	}
	var body AnswerRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 16<<10))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil {
		apiError(w, http.StatusBadRequest, "body: "+err.Error())
		return
	}
	rec, err := s.o.Desk.Answer(r.Context(), approval.Request{
		DecisionID: r.PathValue("id"), Digest: body.Digest, Answer: body.Answer,
		Approver: name, Identity: "cli:" + name, Channel: contracts.ChannelCLI, ResolvedSeen: body.ResolvedSeen,
	})
	if err != nil {
		apiError(w, statusFor(err), err.Error())
		return
	}
	writeJSON(w, http.StatusOK, AnswerResponse{DecisionID: rec.DecisionID, ApprovalID: rec.Answer.ApprovalID,
		Answer: rec.Answer.Answer, Approver: rec.Answer.Approver})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func apiError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, ErrorResponse{Error: msg})
}
