// Package natsport is the deployer's bus adapter: one durable handler on
// agentk.approval.v1 that hands the raw message to the rollback use case and
// returns the signed action for the router to publish before it acks.
package natsport

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"agentk/contracts"
	"agentk/platform/bus"
	"agentk/platform/crashpoint"
	"agentk/services/deployer/internal/rollback"
)

// HandlerName is the durable consumer name: stable across releases.
const HandlerName = "deployer"

// Handler consumes approvals.
type Handler struct {
	Deployer *rollback.Deployer
	Logger   *slog.Logger
}

// Handle is the bus.HandlerFunc. Every final answer, refusals included, is
// published; only transient failures are returned (nack and redeliver).
func (h Handler) Handle(ctx context.Context, m bus.Message) ([]bus.Out, error) {
	ctx, span := startAction(ctx)
	defer span.End()
	crashpoint.Hit(crashpoint.DeployerReceived)
	res, err := h.Deployer.HandleMessage(ctx, m.Data, m.Delivery, m.Sequence)
	if err == nil {
		// Acted and journalled; not published, not acked (a no-op outside
		// the crash suite's own build, see platform/crashpoint).
		crashpoint.Hit(crashpoint.DeployerHandled)
	}
	if err == nil && res.Unverified != nil {
		// A forgery answers nothing: no action under its claimed ids. It is
		// logged with the ids marked as claims, counted, and dead-lettered
		// (kept for forensics, outside every incident's record).
		observeForged(ctx, span, res)
		LogForged(ctx, h.Logger, m.Subject, res)
		return nil, bus.Permanent(fmt.Errorf("%w: %s", ErrUnverified, res.Refusal.Text()))
	}
	observeAction(ctx, span, res, err)
	if err != nil {
		h.Logger.WarnContext(ctx, "approval not settled; will be redelivered", "subject", m.Subject, "delivery", m.Delivery, "err", err)
		return nil, err
	}
	Log(ctx, h.Logger, res)
	return []bus.Out{{Envelope: res.Envelope, MsgID: res.MsgID}}, nil
}

// Log writes one action: refusals and failures loudly, at Error.
func Log(ctx context.Context, log *slog.Logger, res rollback.Result) {
	a := res.Action
	attrs := []any{"action_id", a.ActionID, "approval_id", a.ApprovalID, "decision_id", a.DecisionID,
		"incident_id", a.IncidentID, "incident_service", a.Service, "outcome", a.Outcome}
	switch a.Outcome {
	case contracts.OutcomeRefused:
		code := ""
		if res.Refusal != nil {
			code = res.Refusal.Reason
		}
		log.ErrorContext(ctx, "DEPLOYER REFUSED AN APPROVAL: nothing was changed", append(attrs, "refusal", code, "reason", a.Reason)...)
	case contracts.OutcomeFailed:
		log.ErrorContext(ctx, "ROLLBACK FAILED: back to a human", append(attrs, "from_image", a.FromImage, "to_image", a.ToImage,
			"exit_code", a.ExitCode, "container_verified", a.ContainerVerified, "reason", a.Reason)...)
	default:
		attrs = append(attrs, "from_image", a.FromImage, "to_image", a.ToImage, "command", a.Command,
			"container_verified", a.ContainerVerified, "action_ms", a.ActionMs, "verify_ms", a.VerifyMs, "total_ms", a.TotalMs, "reason", a.Reason)
		if a.Recovered != nil {
			attrs = append(attrs, "recovered", *a.Recovered)
		}
		if a.Recovered != nil && !*a.Recovered {
			log.ErrorContext(ctx, "rolled back but NOT recovered: back to a human, no second automatic rollback", attrs...)
			return
		}
		log.InfoContext(ctx, "approval settled", attrs...)
	}
}

// ErrUnverified is the dead-letter reason of an approval that failed
// verification.
var ErrUnverified = errors.New("deployer: approval failed verification")

// LogForged logs a message that failed verification, at Error, every id
// under a claimed_ key: none of them is verified.
func LogForged(ctx context.Context, log *slog.Logger, subject string, res rollback.Result) {
	u := res.Unverified
	log.ErrorContext(ctx, "DEPLOYER REFUSED AN UNVERIFIED APPROVAL: nothing was changed, no action published",
		"subject", subject, "refusal", res.Refusal.Reason, "reason", res.Refusal.Detail,
		"claimed_approval_id", u.Approval.ApprovalID, "claimed_decision_id", u.Approval.DecisionID,
		"claimed_incident_id", u.Approval.IncidentID, "claimed_service", u.Approval.Service,
		"signed_kid", u.KeyID, "decision_kid", u.DecisionKeyID)
}

// ErrPublish wraps a reconciled action that could not be published.
var ErrPublish = errors.New("deployer: publish")

// PublishAll publishes actions settled outside a delivery (reconciled at
// start). Their message ids are the approvals' action ids, so a republish by
// the redelivered approval is de-duplicated.
func PublishAll(ctx context.Context, c *bus.Conn, log *slog.Logger, results []rollback.Result) error {
	var errs []error
	for _, r := range results {
		Log(ctx, log, r)
		if err := c.Publish(ctx, contracts.SubjectAction, bus.Out{Envelope: r.Envelope, MsgID: r.MsgID}, nil); err != nil {
			errs = append(errs, fmt.Errorf("%w: %s: %w", ErrPublish, r.MsgID, err))
		}
	}
	return errors.Join(errs...)
}
