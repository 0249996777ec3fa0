package natsport

import (
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
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

// Handler runs one investigation per incident.
type Handler struct {
	Config
	sem      chan struct{}
	mu       sync.Mutex
	inflight map[string]bool
	done     map[string]bus.Out
	order    *list.List
}

// DoneCacheSize is how many finished incidents' reports are remembered, so a
// redelivered alert returns the same report instead of a second investigation.
const DoneCacheSize = 4096

// NewHandler returns a Handler for c.
func NewHandler(c Config) *Handler {
	if c.Parallel < 1 {
		c.Parallel = 1
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return &Handler{Config: c, sem: make(chan struct{}, c.Parallel), inflight: map[string]bool{},
		done: map[string]bus.Out{}, order: list.New()}
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
	if _, err := h.Keyring.Open(m.Data, contracts.SubjectAlert, envelope.RoleIngester, h.Now(), &alert); err != nil {
		h.Logger.WarnContext(ctx, "alert rejected", "subject", m.Subject, "err", err)
		return nil, bus.Permanent(fmt.Errorf("investigator: alert: %w", err))
	}
	log := h.Logger.With("incident_id", alert.IncidentID, "incident_service", alert.Service)
	if why := skipReason(alert); why != "" {
		log.InfoContext(ctx, "alert skipped", "reason", why)
		return nil, nil
	}
	invID := InvestigationID(alert.IncidentID)
	log = log.With("investigation_id", invID)

	h.mu.Lock()
	if out, ok := h.done[alert.IncidentID]; ok {
		h.mu.Unlock()
		log.InfoContext(ctx, "incident already investigated, republishing its report")
		return []bus.Out{out}, nil
	}
	if h.inflight[alert.IncidentID] {
		h.mu.Unlock()
		return nil, fmt.Errorf("%w: %s", ErrInProgress, alert.IncidentID)
	}
	h.inflight[alert.IncidentID] = true
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		delete(h.inflight, alert.IncidentID)
		h.mu.Unlock()
	}()

	select {
	case h.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-h.sem }()

	log.InfoContext(ctx, "investigation started", "investigator", h.Investigator)
	rep, err := loop.Investigate(ctx, loop.Input{
		InvestigationID: invID, Alert: alert, AlertEnvelope: m.Data, Investigator: h.Investigator,
	}, loop.Deps{Tools: h.Tools, Model: h.Model, Now: h.Now, Catalogue: h.Catalogue, Budget: h.Budget})
	if err != nil {
		log.WarnContext(ctx, "investigation will be retried", "err", err)
		return nil, err
	}
	env, err := h.Signer.SealJSON(contracts.SubjectReport, rep, h.Now(), 0)
	if err != nil {
		return nil, fmt.Errorf("investigator: seal report %s: %w", invID, err)
	}
	out := bus.Out{Envelope: env, MsgID: invID}
	h.remember(alert.IncidentID, out)
	best := rep.Claims[0]
	log.InfoContext(ctx, "investigation finished", "completed", rep.Completed, "incomplete_reason", rep.IncompleteReason,
		"class", best.Class, "confidence", best.Confidence, "iterations", rep.Iterations, "tool_calls", rep.ToolCalls,
		"tokens_in", rep.TokensIn, "tokens_out", rep.TokensOut, "model", rep.Model)
	return []bus.Out{out}, nil
}

func (h *Handler) remember(incident string, out bus.Out) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.done[incident] = out
	h.order.PushBack(incident)
	for h.order.Len() > DoneCacheSize {
		old := h.order.Remove(h.order.Front()).(string)
		delete(h.done, old)
	}
}
