// Package natsport is the bridge's adapter to the bus: a durable handler on
// agentk.decision.v1 that hands each gate-signed decision to the desk, and the
// publisher of signed approvals.
package natsport

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/bus"
	"agentk/services/bridge/internal/desk"
)

// HandlerName is the bridge's durable consumer on SubjectDecision.
const HandlerName = "bridge"

// ActionHandlerName is the bridge's durable consumer on SubjectAction.
const ActionHandlerName = "bridge_actions"

// Receiver is the part of the desk the handler needs.
type Receiver interface {
	Receive(ctx context.Context, data []byte) error
}

// Handler feeds decisions to the desk.
type Handler struct {
	Desk   Receiver
	Logger *slog.Logger
}

// Handle is the bus.HandlerFunc for SubjectDecision. A decision that can never
// be accepted is dead-lettered; a store or Slack failure is retried. It
// publishes nothing: approvals come from humans, later.
func (h *Handler) Handle(ctx context.Context, m bus.Message) ([]bus.Out, error) {
	err := h.Desk.Receive(ctx, m.Data)
	switch {
	case err == nil:
		return nil, nil
	case errors.Is(err, desk.ErrRejected):
		h.Logger.WarnContext(ctx, "decision rejected", "subject", m.Subject, "err", err)
		return nil, bus.Permanent(err)
	default:
		h.Logger.WarnContext(ctx, "decision not yet handled; will retry", "subject", m.Subject, "delivery", m.Delivery, "err", err)
		return nil, err
	}
}

// ActionReceiver is the part of the desk the action handler needs.
type ActionReceiver interface {
	ReceiveAction(ctx context.Context, data []byte) error
}

// ActionHandler feeds the deployer's outcomes to the desk, which tells them
// in the decision's Slack thread.
type ActionHandler struct {
	Desk   ActionReceiver
	Logger *slog.Logger
}

// Handle is the bus.HandlerFunc for SubjectAction: a message that can never
// be accepted is dead-lettered; a store or Slack failure is retried.
func (h *ActionHandler) Handle(ctx context.Context, m bus.Message) ([]bus.Out, error) {
	err := h.Desk.ReceiveAction(ctx, m.Data)
	switch {
	case err == nil:
		return nil, nil
	case errors.Is(err, desk.ErrRejected):
		h.Logger.WarnContext(ctx, "action rejected", "subject", m.Subject, "err", err)
		return nil, bus.Permanent(err)
	default:
		h.Logger.WarnContext(ctx, "action not yet told; will retry", "subject", m.Subject, "delivery", m.Delivery, "err", err)
		return nil, err
	}
}

// Publishing is the part of bus.Conn the publisher needs.
type Publishing interface {
	Publish(ctx context.Context, subject string, out bus.Out, md map[string]string) error
}

// Publisher publishes approvals on SubjectApproval.
type Publisher struct{ Conn Publishing }

// Publish implements desk.Publisher.
func (p Publisher) Publish(ctx context.Context, env envelope.Envelope, msgID string) error {
	if err := p.Conn.Publish(ctx, contracts.SubjectApproval, bus.Out{Envelope: env, MsgID: msgID}, nil); err != nil {
		return fmt.Errorf("bridge: publish %s: %w", msgID, err)
	}
	return nil
}
