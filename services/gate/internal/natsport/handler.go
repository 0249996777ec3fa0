// Package natsport is the gate's adapter to the bus: it verifies the review
// and every envelope inside it, reads the cooldown and the release ledger
// from KV, stamps the clock once, calls policy.Decide, and returns the
// signed decisions for the router to publish.
package natsport

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/bus"
	"agentk/platform/evidence"
	"agentk/platform/mutant"
	"agentk/services/gate/internal/policy"
)

// HandlerName is the gate's durable consumer on SubjectReview.
const HandlerName = "gate"

var (
	// ErrReview is returned (wrapped in bus.Permanent) for a review that does not
	// verify or names no review or investigation: the gate decides nothing on it.
	ErrReview = errors.New("gate: review rejected")
	// ErrSeal is returned when the decision cannot be signed.
	ErrSeal = errors.New("gate: cannot seal decision")
)

// Getter is the part of a jetstream.KeyValue the gate uses.
type Getter interface {
	Get(ctx context.Context, key string) (jetstream.KeyValueEntry, error)
}

// Handler turns one review into one signed decision.
type Handler struct {
	Keyring *envelope.Keyring
	Signer  *envelope.Signer
	Now     func() time.Time
	Config  policy.Config
	// Cooldowns and Releases are the KV buckets agentk_cooldown and agentk_releases.
	Cooldowns Getter
	Releases  Getter
	// Freezes is the KV bucket agentk_freezes (bridge-signed FreezeV1).
	Freezes Getter
	// Evidence resolves the evidence a review refers to (KV
	// agentk_evidence); nil resolves none, and every reference counts as
	// rejected evidence.
	Evidence *evidence.Resolver
	// Deliveries is the delivery of a review on which a store that cannot
	// be read (an action ledger, release ledger or freeze read that timed
	// out or found no stream leader) fails its check closed; on an earlier
	// delivery the review is redelivered instead, so that a node lost or
	// partitioned away costs a retry, not a right rollback (issue 36). The
	// gate sets it to the bus's MaxDeliver, where the router would
	// dead-letter: the last delivery still decides, and a human sees a
	// denial rather than nothing. Zero or one: closed at once.
	Deliveries int
	Logger     *slog.Logger
	Telemetry  *Telemetry
}

// Handle is the bus.HandlerFunc for SubjectReview.
func (h *Handler) Handle(ctx context.Context, m bus.Message) ([]bus.Out, error) {
	now := h.Now()
	in, err := h.Input(ctx, m, now)
	if errors.Is(err, errEvidenceRetry) || errors.Is(err, errStateRetry) {
		// Nothing is decided on evidence or state the gate could not read
		// yet: the review is redelivered (state: until Deliveries, then
		// the check it feeds fails closed; evidence: dead-lettered after
		// MaxDeliver).
		h.Logger.WarnContext(ctx, "evidence or state not readable yet; will retry", "subject", m.Subject, "delivery", m.Delivery, "err", err)
		return nil, err
	}
	if err != nil {
		h.Logger.WarnContext(ctx, "review rejected", "subject", m.Subject, "err", err)
		h.Telemetry.rejected(ctx)
		return nil, bus.Permanent(err)
	}
	// The alerted service's decision, then at most one derived decision
	// about the service where its failures begin (issue 33): each signed,
	// each with its own id, so each is spent once.
	var out []bus.Out
	for _, d := range policy.Decide(in) {
		if in.Alert != nil {
			// Passed through unchanged, only once verified: the deployer's
			// recovery query needs the ingester's own envelope for its window.
			d.Alert = in.Review.Alert
		}
		h.Telemetry.observe(ctx, in, d)
		env, err := h.Signer.SealJSON(contracts.SubjectDecision, d, now, h.Config.DecisionTTL)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrSeal, d.DecisionID, err)
		}
		attrs := []any{"decision_id", d.DecisionID, "incident_id", d.IncidentID, "incident_service", d.Service,
			"verdict", d.Verdict, "failed_checks", d.FailedChecks}
		if d.Origin != nil {
			attrs = append(attrs, "alerted_service", d.Origin.AlertedService, "origin_share", d.Origin.Share)
		}
		h.Logger.InfoContext(ctx, "decision", attrs...)
		out = append(out, bus.Out{Envelope: env, MsgID: d.DecisionID})
	}
	return out, nil
}

// Input verifies a review message and everything it carries, reads KV, and
// builds the policy input. It uses the envelope the router parsed (the
// review is the largest message on the path: every evidence envelope again,
// base64 inside JSON) and parses m.Data only for a message built without it.
// Only an unverifiable review is an error; every other problem becomes part
// of the input and fails a check.
func (h *Handler) Input(ctx context.Context, m bus.Message, now time.Time) (policy.Input, error) {
	var r contracts.ReviewV1
	if err := m.Open(h.Keyring, contracts.SubjectReview, now, &r); err != nil {
		return policy.Input{}, fmt.Errorf("%w: %w", ErrReview, err)
	}
	if r.ReviewID == "" || r.InvestigationID == "" {
		return policy.Input{}, fmt.Errorf("%w: review %q names no review or investigation id", ErrReview, r.ReviewID)
	}
	in := policy.Input{Now: now, Action: policy.ActionRollback, Review: r, Config: h.Config}

	var a contracts.AlertV1
	if _, err := h.Keyring.Open(r.Alert, contracts.SubjectAlert, now, &a); err != nil {
		in.AlertErr = err.Error()
	} else {
		in.Alert = &a
	}
	if err := h.evidence(ctx, r, m.Delivery, now, &in); err != nil {
		return policy.Input{}, err
	}

	svc := ""
	if in.Alert != nil {
		svc = in.Alert.Service
	}
	var cd contracts.CooldownV1
	found, cdErr := h.read(ctx, h.Cooldowns, svc, contracts.SubjectCooldown, now, &cd)
	in.Cooldown = policy.CooldownState{Found: found, Last: cd, Err: errText(cdErr)}
	var l contracts.ReleaseLedgerV1
	found, lErr := h.read(ctx, h.Releases, svc, contracts.SubjectLedger, now, &l)
	in.Ledger = policy.LedgerState{Found: found, Ledger: l, Err: errText(lErr)}
	var frzErr, originErr error
	in.Freezes, frzErr = h.readFreezes(ctx, svc, now)
	if o, _, ok := policy.OriginOf(in); ok {
		in.Origin, originErr = h.readOrigin(ctx, o.Service, now)
	}
	if m.Delivery < h.Deliveries && !mutant.Off(mutant.GateStateRetry) {
		if err := firstUnreadable(cdErr, lErr, frzErr, originErr); err != nil {
			return policy.Input{}, fmt.Errorf("%w: review %s: %w", errStateRetry, r.ReviewID, err)
		}
	}
	return in, nil
}

// errStateRetry marks a review whose action ledger, release ledger or
// freezes could not be read on this delivery (a store without a leader, a
// read that timed out): it is read again on a later one.
var errStateRetry = errors.New("gate: state not readable yet")

// errUnreadable marks a read that reached no answer (a timeout, no stream
// leader), as against a key that is absent, cannot be a key, or does not
// verify (final: the check fails). Its text stays in the reason a denial
// gives: "read shop-api: unreadable: context deadline exceeded".
var errUnreadable = errors.New("unreadable")

// firstUnreadable returns the first of errs that reached no answer, or nil.
func firstUnreadable(errs ...error) error {
	for _, err := range errs {
		if errors.Is(err, errUnreadable) {
			return err
		}
	}
	return nil
}

// errText is err's text, or "" for nil: the policy's state carries a
// reason, not an error.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// readOrigin reads the state of s, the service where the alerted service's
// failures begin: its action ledger, release ledger and freezes, each
// verified like the alerted service's; every problem fails the derived
// decision's checks closed. The error is the first read that reached no
// answer (errUnreadable), or nil.
func (h *Handler) readOrigin(ctx context.Context, s string, now time.Time) (policy.OriginState, error) {
	st := policy.OriginState{Service: s}
	var cd contracts.CooldownV1
	found, cdErr := h.read(ctx, h.Cooldowns, s, contracts.SubjectCooldown, now, &cd)
	st.Cooldown = policy.CooldownState{Found: found, Last: cd, Err: errText(cdErr)}
	var l contracts.ReleaseLedgerV1
	found, lErr := h.read(ctx, h.Releases, s, contracts.SubjectLedger, now, &l)
	st.Ledger = policy.LedgerState{Found: found, Ledger: l, Err: errText(lErr)}
	var frzErr error
	st.Freezes, frzErr = h.readFreezes(ctx, s, now)
	return st, firstUnreadable(cdErr, lErr, frzErr)
}

// errEvidenceRetry marks a review whose evidence should be read again on a
// later delivery (evidence.Retry).
var errEvidenceRetry = errors.New("gate: evidence not readable yet")

// evidence verifies the evidence the review carries inline and resolves the
// evidence it refers to. Evidence that is missing, does not match its
// reference or does not verify is counted as rejected and left out (so a
// check that needs it fails); an unreadable store, or evidence missing on
// an early delivery, is errEvidenceRetry (transient).
func (h *Handler) evidence(ctx context.Context, r contracts.ReviewV1, delivery int, now time.Time, in *policy.Input) error {
	for _, raw := range r.Evidence {
		var e contracts.EvidenceV1
		if _, err := h.Keyring.Open(raw, contracts.SubjectEvidence, now, &e); err != nil {
			in.EvidenceRejected++
			continue
		}
		in.Evidence = append(in.Evidence, e)
	}
	resolved, err := h.Evidence.ResolveAll(ctx, r.EvidenceRefs, delivery, now)
	if err != nil {
		return fmt.Errorf("%w: review %s: %w", errEvidenceRetry, r.ReviewID, err)
	}
	for _, e := range resolved {
		if e.Err != nil {
			in.EvidenceRejected++
			continue
		}
		in.Evidence = append(in.Evidence, e.Value)
	}
	return nil
}

// readFreezes reads the service's and the global freeze, each a
// bridge-signed FreezeV1. Any read or verification failure is recorded so
// the freeze check fails closed; the error is the first read that reached
// no answer (errUnreadable), or nil.
func (h *Handler) readFreezes(ctx context.Context, svc string, now time.Time) (policy.FreezeState, error) {
	var st policy.FreezeState
	var errs []error
	keys := []string{contracts.FreezeGlobal}
	if svc != "" {
		keys = append(keys, contracts.FreezeKey(svc))
	}
	for _, k := range keys {
		var f contracts.FreezeV1
		found, err := h.read(ctx, h.Freezes, k, contracts.SubjectFreeze, now, &f)
		switch {
		case err != nil:
			errs = append(errs, err)
		case found && f.Scope != k:
			errs = append(errs, fmt.Errorf("freeze under key %s is about %q", k, f.Scope))
		case found:
			st.Freezes = append(st.Freezes, f)
		}
	}
	texts := make([]string, len(errs))
	for i, err := range errs {
		texts[i] = err.Error()
	}
	st.Err = strings.Join(texts, "; ")
	return st, firstUnreadable(errs...)
}

// read fetches key from kv and opens it as subject, signed by its producer. A
// missing key is (false, nil); anything unreadable or unverifiable is an error.
func (h *Handler) read(ctx context.Context, kv Getter, key, subject string, now time.Time, v any) (bool, error) {
	if key == "" {
		return false, errors.New("no service to look up")
	}
	if kv == nil {
		return false, errors.New("store not configured")
	}
	// The key comes from the alert's service name: a name the protocol
	// cannot carry (100 KB, a NUL) would cost the connection, so it is
	// refused here and the check it feeds fails closed.
	if !mutant.Off(mutant.GateSafeKey) {
		if err := bus.SafeKey(key); err != nil {
			return false, fmt.Errorf("read %.64q: %w", key, err)
		}
	}
	e, err := kv.Get(ctx, key)
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound), errors.Is(err, jetstream.ErrKeyDeleted):
		return false, nil
	case errors.Is(err, jetstream.ErrInvalidKey):
		return false, fmt.Errorf("read %s: %w", key, err)
	case err != nil:
		return false, fmt.Errorf("read %s: %w: %w", key, errUnreadable, err)
	}
	if _, err := h.Keyring.Open(e.Value(), subject, now, v); err != nil {
		return false, fmt.Errorf("verify %s: %w", key, err)
	}
	return true, nil
}
