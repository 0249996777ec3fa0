// Package natsport is the reviewer's adapter to the bus: it verifies reports
// and the evidence inside them, calls review.Review, returns the signed
// review, and keeps the incident report in KV agentk_reports current as
// decisions, approvals and actions arrive.
package natsport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/bus"
	"agentk/platform/evidence"
	"agentk/platform/report"
	"agentk/services/reviewer/internal/review"
)

// Durable handler names.
const (
	HandlerReports   = "reviewer"
	HandlerDecisions = "reviewer-decisions"
	HandlerApprovals = "reviewer-approvals"
	HandlerActions   = "reviewer-actions"
)

var (
	// ErrRejected is returned (wrapped in bus.Permanent) for a message that does not verify.
	ErrRejected = errors.New("reviewer: message rejected")
	// ErrStore is returned when the report store cannot be updated (transient).
	ErrStore = errors.New("reviewer: report store")
)

// Store is the part of a jetstream.KeyValue the reviewer uses.
type Store interface {
	Get(ctx context.Context, key string) (jetstream.KeyValueEntry, error)
	Create(ctx context.Context, key string, value []byte, opts ...jetstream.KVCreateOpt) (uint64, error)
	Update(ctx context.Context, key string, value []byte, revision uint64) (uint64, error)
}

// Handler holds the reviewer's dependencies.
type Handler struct {
	Keyring *envelope.Keyring
	Signer  *envelope.Signer
	Now     func() time.Time
	Config  review.Config
	Reports Store
	// Evidence resolves the evidence a report refers to (KV
	// agentk_evidence); nil resolves none, and every reference fails.
	Evidence *evidence.Resolver
	Logger   *slog.Logger
}

// HandleReport is the bus.HandlerFunc for SubjectReport.
func (h *Handler) HandleReport(ctx context.Context, m bus.Message) ([]bus.Out, error) {
	now := h.Now()
	var rep contracts.ReportV1
	if err := m.Open(h.Keyring, contracts.SubjectReport, now, &rep); err != nil {
		h.Logger.WarnContext(ctx, "report rejected", "subject", m.Subject, "err", err)
		return nil, bus.Permanent(fmt.Errorf("%w: report: %w", ErrRejected, err))
	}
	if rep.InvestigationID == "" || rep.IncidentID == "" {
		return nil, bus.Permanent(fmt.Errorf("%w: report names no investigation or incident", ErrRejected))
	}
	in := review.Input{Now: now, Report: rep, Config: h.Config}
	meta := rep
	meta.Alert, meta.Evidence, meta.EvidenceRefs = nil, nil, nil
	src := report.Sources{Report: &meta}
	var a contracts.AlertV1
	if _, err := h.Keyring.Open(rep.Alert, contracts.SubjectAlert, now, &a); err == nil {
		src.Alert = &a
	}
	evs, err := h.gather(ctx, rep, m.Delivery, now)
	if err != nil {
		h.Logger.WarnContext(ctx, "evidence not readable yet; will retry", "subject", m.Subject, "delivery", m.Delivery, "err", err)
		return nil, err
	}
	for _, ev := range evs {
		in.Evidence = append(in.Evidence, ev)
		if ev.Value != nil && ev.Value.InvestigationID == rep.InvestigationID {
			src.Evidence = append(src.Evidence, *ev.Value)
		}
	}
	rv := review.Review(in)
	rv.Alert, rv.Evidence, rv.EvidenceRefs = rep.Alert, rep.Evidence, rep.EvidenceRefs
	env, err := h.Signer.SealJSON(contracts.SubjectReview, rv, now, 0)
	if err != nil {
		return nil, fmt.Errorf("reviewer: seal %s: %w", rv.ReviewID, err)
	}
	stored := rv
	stored.Alert, stored.Evidence, stored.EvidenceRefs = nil, nil, nil
	if err := h.upsert(ctx, rep.IncidentID, func(s *report.Sources) {
		s.Report, s.Alert, s.Evidence, s.Review = src.Report, src.Alert, src.Evidence, &stored
	}); err != nil {
		return nil, err
	}
	h.Logger.InfoContext(ctx, "review", "incident_id", rv.IncidentID, "investigation_id", rv.InvestigationID,
		"kept", len(rv.Kept), "dropped", len(rv.Dropped), "insufficient_evidence", rv.InsufficientEvidence)
	return []bus.Out{{Envelope: env, MsgID: rv.ReviewID, Value: &rv}}, nil
}

// gather verifies the evidence a report carries inline and resolves the
// evidence it refers to, in that order. Evidence that is missing, does not
// match its reference or does not verify comes back with its error (the
// claims citing it are dropped); an unreadable store, or evidence missing on
// an early delivery (evidence.Retry), is an error: the report is
// redelivered.
func (h *Handler) gather(ctx context.Context, rep contracts.ReportV1, delivery int, now time.Time) ([]review.Evidence, error) {
	out := make([]review.Evidence, 0, len(rep.Evidence)+len(rep.EvidenceRefs))
	for _, raw := range rep.Evidence {
		out = append(out, verifyEvidence(h.Keyring, raw, now))
	}
	resolved, err := h.Evidence.ResolveAll(ctx, rep.EvidenceRefs, delivery, now)
	if err != nil {
		return nil, fmt.Errorf("reviewer: report %s: %w", rep.InvestigationID, err)
	}
	for _, e := range resolved {
		if e.Err != nil {
			out = append(out, review.Evidence{ID: e.ID, Err: e.Err.Error()})
			continue
		}
		out = append(out, review.Evidence{ID: e.Value.ID, Value: &e.Value})
	}
	return out, nil
}

// verifyEvidence opens one evidence envelope; for one that does not verify it
// keeps the id the payload claims, so a dropped claim can say which one failed.
func verifyEvidence(k *envelope.Keyring, raw []byte, now time.Time) review.Evidence {
	var v contracts.EvidenceV1
	e, err := k.Open(raw, contracts.SubjectEvidence, now, &v)
	if err == nil {
		return review.Evidence{ID: v.ID, Value: &v}
	}
	var claimed struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(e.Payload, &claimed)
	return review.Evidence{ID: claimed.ID, Err: err.Error()}
}

// openAt verifies an envelope as of its own issue time: the reviewer records
// decisions and approvals for the report, it never acts on them, so one that
// expired since is still part of the incident's history.
// It uses the envelope the router parsed, parsing m.Data only for a message
// built without it.
func (h *Handler) openAt(m bus.Message, subject string, v any) error {
	e := m.Envelope
	if e.Sig == nil {
		var err error
		if e, err = envelope.Parse(m.Data); err != nil {
			return err
		}
	}
	if err := h.Keyring.VerifyProduced(e, subject, e.Issued()); err != nil {
		return err
	}
	return json.Unmarshal(e.Payload, v)
}

// HandleDecision records a gate decision in the report.
func (h *Handler) HandleDecision(ctx context.Context, m bus.Message) ([]bus.Out, error) {
	var d contracts.DecisionV1
	if err := h.openAt(m, contracts.SubjectDecision, &d); err != nil {
		return nil, bus.Permanent(fmt.Errorf("%w: decision: %w", ErrRejected, err))
	}
	if d.Origin != nil {
		// A derived decision (issue 33) is about another service than the
		// alerted one: it sits beside the alerted decision, never over it.
		return nil, h.upsert(ctx, d.IncidentID, func(s *report.Sources) { s.Derived = &d })
	}
	return nil, h.upsert(ctx, d.IncidentID, func(s *report.Sources) { s.Decision = &d })
}

// HandleApproval records a human's answer in the report.
func (h *Handler) HandleApproval(ctx context.Context, m bus.Message) ([]bus.Out, error) {
	var a contracts.ApprovalV1
	if err := h.openAt(m, contracts.SubjectApproval, &a); err != nil {
		return nil, bus.Permanent(fmt.Errorf("%w: approval: %w", ErrRejected, err))
	}
	a.Decision = nil
	return nil, h.upsert(ctx, a.IncidentID, func(s *report.Sources) { s.Approval = &a })
}

// HandleAction records what the deployer did in the report.
func (h *Handler) HandleAction(ctx context.Context, m bus.Message) ([]bus.Out, error) {
	var a contracts.ActionV1
	if err := h.openAt(m, contracts.SubjectAction, &a); err != nil {
		return nil, bus.Permanent(fmt.Errorf("%w: action: %w", ErrRejected, err))
	}
	return nil, h.upsert(ctx, a.IncidentID, func(s *report.Sources) { s.Action = &a })
}

// upsert applies f to the stored sources of incident with compare-and-set,
// retrying a lost race a few times; a store error is transient.
func (h *Handler) upsert(ctx context.Context, incident string, f func(*report.Sources)) error {
	if incident == "" {
		return bus.Permanent(fmt.Errorf("%w: no incident id", ErrRejected))
	}
	// The key comes from a message: one the protocol cannot carry is
	// refused here, not sent to the server.
	if err := bus.SafeKey(incident); err != nil {
		return bus.Permanent(fmt.Errorf("%w: incident id: %w", ErrRejected, err))
	}
	for range 5 {
		var s report.Sources
		e, err := h.Reports.Get(ctx, incident)
		switch {
		case errors.Is(err, jetstream.ErrKeyNotFound):
			e = nil
		case err != nil:
			return fmt.Errorf("%w: get %s: %w", ErrStore, incident, err)
		default:
			if err := json.Unmarshal(e.Value(), &s); err != nil {
				return bus.Permanent(fmt.Errorf("%w: stored report %s: %w", ErrStore, incident, err))
			}
		}
		f(&s)
		b, err := json.Marshal(s)
		if err != nil {
			return bus.Permanent(fmt.Errorf("%w: encode %s: %w", ErrStore, incident, err))
		}
		if e == nil {
			_, err = h.Reports.Create(ctx, incident, b)
		} else {
			_, err = h.Reports.Update(ctx, incident, b, e.Revision())
		}
		if errors.Is(err, jetstream.ErrKeyExists) || errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
			continue
		}
		if err != nil {
			return fmt.Errorf("%w: write %s: %w", ErrStore, incident, err)
		}
		return nil
	}
	return fmt.Errorf("%w: %s: too many concurrent updates", ErrStore, incident)
}
