package natsport

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/bus"
	"agentk/services/ingester/internal/incidents"
)

// DecisionHandlerName is the durable consumer of the ingester's decision
// handler.
const DecisionHandlerName = "ingester-decisions"

// Decisions releases a decided incident's investigation slot: the gate's
// decision ends the investigation, whatever the verdict.
type Decisions struct {
	Index   *incidents.Index
	Keyring *envelope.Keyring
	Now     func() time.Time
	Logger  *slog.Logger
}

// Handle is the bus.HandlerFunc for contracts.SubjectDecision. A decision
// that does not verify is dead-lettered; a store failure is redelivered.
func (h *Decisions) Handle(ctx context.Context, m bus.Message) ([]bus.Out, error) {
	now := h.Now()
	var d contracts.DecisionV1
	// The decision's own expiry does not matter here: a late decision still
	// ends its investigation. So it is verified as of its issue time.
	// m.Open verifies the envelope the router parsed, without a second parse.
	if err := m.Open(h.Keyring, contracts.SubjectDecision, m.Envelope.Issued(), &d); err != nil {
		return nil, bus.Permanent(fmt.Errorf("ingester: decision: %w", err))
	}
	if bus.SafeKey(d.IncidentID) != nil {
		return nil, bus.Permanent(fmt.Errorf("ingester: decision %.80q names no valid incident", d.DecisionID))
	}
	changed, err := h.Index.Decided(ctx, d.IncidentID, d.Verdict, now)
	if err != nil {
		return nil, err
	}
	if !changed {
		return nil, nil
	}
	h.Logger.InfoContext(ctx, "incident decided: investigation slot released", "incident_id", d.IncidentID, "decision_id", d.DecisionID, "verdict", d.Verdict)
	released, err := h.Index.Dispatch(ctx, now)
	if err != nil {
		// The ticker dispatches again; the decision itself is recorded.
		h.Logger.WarnContext(ctx, "dispatch after a decision failed", "err", err)
	}
	for _, id := range released {
		h.Logger.InfoContext(ctx, "queued incident released to investigation", "incident_id", id)
	}
	return nil, nil
}
