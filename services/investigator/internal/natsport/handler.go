package natsport

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/bus"
	"agentk/services/investigator/internal/loop"
)

// HandlerName is the durable consumer name of the alert handler.
const HandlerName = "investigator"

// ErrInProgress is returned (transient: redelivered later) for an alert whose
// incident is being investigated right now.
var ErrInProgress = errors.New("investigator: investigation in progress")

// InvestigationID derives the investigation id from the incident id, so a
// redelivered alert maps to the same investigation and the same report
// Nats-Msg-Id.
func InvestigationID(incidentID string) string {
	s := sha256.Sum256([]byte("agentk.investigation.v1\x00" + incidentID))
	return "inv-" + hex.EncodeToString(s[:10])
}

// Config is what a Handler needs.
type Config struct {
	Keyring      *envelope.Keyring
	Signer       *envelope.Signer
	Now          func() time.Time
	Logger       *slog.Logger
	Tools        loop.ToolCaller
	Model        loop.Model
	Investigator string
	Catalogue    []contracts.FailureClass
	Budget       loop.Budget
	// Parallel caps concurrent investigations (at least 1).
	Parallel int
}

// Handler runs one investigation per incident. Handle is thin: it verifies
// and decodes the alert, then calls the investigation through two
// middlewares (middleware.go): one investigation per incident (a finished
// one's report is remembered, a running one is ErrInProgress) and at most
// Parallel at once.
type Handler struct {
	Config
	run alertHandler
}

// NewHandler returns a Handler for c.
func NewHandler(c Config) *Handler {
	if c.Parallel < 1 {
		c.Parallel = 1
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	h := &Handler{Config: c}
	h.run = onePerIncident(DoneCacheSize, c.Logger, limit(c.Parallel, h.investigate))
	return h
}

// skipReason says why an alert is acknowledged without an investigation.
func skipReason(a contracts.AlertV1) string {
	switch {
	case a.Test:
		return "test alert"
	case a.NoData:
		return "no-data alert"
	case a.Status != contracts.AlertFiring:
		return "status " + a.Status
	case a.Service == "":
		return "no service label"
	case a.IncidentID == "":
		return "no incident id"
	}
	return ""
}

// Handle is the bus.HandlerFunc for SubjectAlert. It returns the signed report
// to publish with Nats-Msg-Id = the investigation id. A bad signature or
// payload is permanent; an unavailable sandbox, shutdown or an investigation
// of the same incident still running are transient.
func (h *Handler) Handle(ctx context.Context, m bus.Message) ([]bus.Out, error) {
	var alert contracts.AlertV1
	// The router has parsed the envelope already: verify it, do not parse again.
	if err := m.Open(h.Keyring, contracts.SubjectAlert, h.Now(), &alert); err != nil {
		h.Logger.WarnContext(ctx, "alert rejected", "subject", m.Subject, "err", err)
		return nil, bus.Permanent(fmt.Errorf("investigator: alert: %w", err))
	}
	log := h.Logger.With("incident_id", alert.IncidentID, "incident_service", alert.Service)
	if why := skipReason(alert); why != "" {
		log.InfoContext(ctx, "alert skipped", "reason", why)
		return nil, nil
	}
	out, err := h.run(ctx, alert, m.Data)
	if err != nil {
		return nil, err
	}
	return []bus.Out{out}, nil
}

// investigate runs one investigation of alert and seals its report.
func (h *Handler) investigate(ctx context.Context, alert contracts.AlertV1, raw []byte) (bus.Out, error) {
	invID := InvestigationID(alert.IncidentID)
	log := h.Logger.With("incident_id", alert.IncidentID, "incident_service", alert.Service, "investigation_id", invID)
	log.InfoContext(ctx, "investigation started", "investigator", h.Investigator)
	rep, err := loop.Investigate(ctx, loop.Input{
		InvestigationID: invID, Alert: alert, AlertEnvelope: raw, Investigator: h.Investigator,
	}, loop.Deps{Tools: h.Tools, Model: h.Model, Now: h.Now, Catalogue: h.Catalogue, Budget: h.Budget})
	if err != nil {
		log.WarnContext(ctx, "investigation will be retried", "err", err)
		return bus.Out{}, err
	}
	env, err := h.Signer.SealJSON(contracts.SubjectReport, rep, h.Now(), 0)
	if err != nil {
		return bus.Out{}, fmt.Errorf("investigator: seal report %s: %w", invID, err)
	}
	best := rep.Claims[0]
	log.InfoContext(ctx, "investigation finished", "completed", rep.Completed, "incomplete_reason", rep.IncompleteReason,
		"class", best.Class, "confidence", best.Confidence, "iterations", rep.Iterations, "tool_calls", rep.ToolCalls,
		"tokens_in", rep.TokensIn, "tokens_out", rep.TokensOut, "model", rep.Model)
	return bus.Out{Envelope: env, MsgID: invID, Value: &rep}, nil
}
