// Package policy is the deployer's own refusal logic: a pure function of the
// verified approval, the decision inside it, the deployer's configuration and
// the KV state it read. It never trusts the gate or the bridge to have checked
// anything; the model is assumed wrong and so is every upstream message.
package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/mutant"
)

// Refusal reasons: stable codes, the first word of every refused action's Reason.
const (
	ReasonApprovalSignature = "approval_signature"
	ReasonDecisionSignature = "decision_signature"
	ReasonDigestMismatch    = "digest_mismatch"
	ReasonDecisionMismatch  = "decision_mismatch"
	ReasonApprovalExpired   = "approval_expired"
	ReasonDecisionExpired   = "decision_expired"
	ReasonNoExpiry          = "no_expiry"
	ReasonReplay            = "replay"
	ReasonDecisionDenied    = "decision_denied"
	ReasonActionNotAllowed  = "action_not_allowed"
	ReasonShadow            = "shadow_decision"
	ReasonNotAllowlisted    = "service_not_allowlisted"
	ReasonUnknownAnswer     = "unknown_answer"
	ReasonCooldownActive    = "cooldown_active"
	ReasonCooldownUnread    = "cooldown_unreadable"
	ReasonCooldownRace      = "cooldown_race"
	ReasonNoTarget          = "no_rollback_target"
	ReasonLedgerUnread      = "ledger_unreadable"
	ReasonStateUnread       = "state_unreadable"
	// ReasonFrozen: an active freeze covers the service (or every service),
	// or the freeze store could not be read or verified.
	ReasonFrozen = "frozen"
	// ReasonDecisionSpent: another approval already consumed this decision
	// (agentk_spent): a decision pays for at most one action.
	ReasonDecisionSpent = "decision_spent"
	// ReasonTargetMismatch: the deployer's own plan is not the move the
	// decision, and so the human, approved (current → target images).
	ReasonTargetMismatch = "target_mismatch"
	// ReasonLedgerMoved: the release running now was deployed after the
	// decision was made; the decision is about a state that is gone.
	ReasonLedgerMoved = "ledger_moved"
	// ReasonAlertResolved: the incident's alert resolved and no human
	// confirmed the rollback after seeing that.
	ReasonAlertResolved = "alert_resolved"
	// ReasonIncidentUnread: the incident record could not be read or decoded.
	ReasonIncidentUnread = "incident_unreadable"
	// ReasonOriginMismatch: a derived decision (about the service where the
	// alerted service's failures begin) carries no verified alert of the
	// alerted service it names, for its incident.
	ReasonOriginMismatch = "origin_mismatch"
)

// ErrRefused is wrapped by every Refusal used as an error.
var ErrRefused = errors.New("policy: refused")

// Refusal says why the deployer will not act. Reason is one of the Reason*
// codes; Detail names the values involved.
type Refusal struct {
	Reason string
	Detail string
}

// Error implements error.
func (r *Refusal) Error() string { return fmt.Sprintf("%v: %s: %s", ErrRefused, r.Reason, r.Detail) }

// Unwrap makes errors.Is(r, ErrRefused) true.
func (r *Refusal) Unwrap() error { return ErrRefused }

// Text is the refusal as it goes into ActionV1.Reason.
func (r *Refusal) Text() string { return r.Reason + ": " + r.Detail }

func refuse(reason, format string, args ...any) *Refusal {
	return &Refusal{Reason: reason, Detail: fmt.Sprintf(format, args...)}
}

// Verified is an approval whose bridge signature and embedded gate-signed
// decision both verified.
type Verified struct {
	Approval    contracts.ApprovalV1
	ApprovalEnv envelope.Envelope
	Decision    contracts.DecisionV1
	DecisionEnv envelope.Envelope
}

// Unverified is what could be read from a message that failed verification,
// for the log; none of it is trusted.
type Unverified struct {
	Approval contracts.ApprovalV1
	// KeyID and DecisionKeyID are the key ids the approval and its decision
	// claim to be signed with.
	KeyID, DecisionKeyID string
	// Forged is true when a signature, key, role, subject or encoding failed:
	// no id in Approval is verified, and no action may be published under
	// them. False for a refusal on time alone.
	Forged bool
}

// Open verifies raw as a bridge-signed approval whose Decision is a
// gate-signed decision, both valid at now. Keys of any other role are refused.
// On failure it returns whatever ids it could read, for the log; none of them
// is trusted. Unverified says whether the identities are unverified: false
// only for a refusal on time alone (expired, issued in the future), where
// both signatures and roles held.
func Open(kr *envelope.Keyring, raw []byte, now time.Time) (Verified, Unverified, *Refusal) {
	var v Verified
	var u Unverified
	env, err := open(kr, raw, contracts.SubjectApproval, now, mutant.DeployerBridgeSig, &v.Approval)
	if err != nil {
		if e, perr := envelope.Parse(raw); perr == nil {
			_ = json.Unmarshal(e.Payload, &u.Approval) // what it can, for the log
			u.KeyID = e.KeyID
		}
		u.Forged = !timeOnly(err)
		return Verified{}, u, refuse(reasonFor(err, ReasonApprovalSignature, ReasonApprovalExpired), "approval: %v", err)
	}
	u.Approval = v.Approval
	u.KeyID = env.KeyID
	v.ApprovalEnv = env
	denv, err := open(kr, v.Approval.Decision, contracts.SubjectDecision, now, mutant.DeployerGateSignature, &v.Decision)
	if err != nil {
		if e, perr := envelope.Parse(v.Approval.Decision); perr == nil {
			u.DecisionKeyID = e.KeyID
		}
		u.Forged = !timeOnly(err)
		return Verified{}, u, refuse(reasonFor(err, ReasonDecisionSignature, ReasonDecisionExpired), "decision in approval %s: %v", v.Approval.ApprovalID, err)
	}
	v.DecisionEnv = denv
	return v, u, nil
}

// open is Keyring.Open with the deployer's verifications behind their
// mutants: in a mutant build, the one switched off lets the envelope through
// as if that check had passed.
func open(kr *envelope.Keyring, raw []byte, subject string, now time.Time, sigMutant string, v any) (envelope.Envelope, error) {
	env, err := kr.Open(raw, subject, now, v)
	if err == nil {
		return env, nil
	}
	skip := false
	switch {
	case errors.Is(err, envelope.ErrUnknownKey), errors.Is(err, envelope.ErrBadSignature):
		skip = mutant.Off(sigMutant)
	case errors.Is(err, envelope.ErrWrongRole), errors.Is(err, envelope.ErrRoleForbidden):
		skip = mutant.Off(mutant.DeployerRoles)
	case errors.Is(err, envelope.ErrExpired):
		skip = mutant.Off(mutant.DeployerExpiry)
	}
	if !skip {
		return env, err
	}
	if jerr := json.Unmarshal(env.Payload, v); jerr != nil {
		return env, err
	}
	return env, nil
}

// timeOnly reports whether err is a verification failure on time alone: the
// key, its role, the subject and the signature all held.
func timeOnly(err error) bool {
	return errors.Is(err, envelope.ErrExpired) || errors.Is(err, envelope.ErrNotYetValid)
}

func reasonFor(err error, sig, expired string) string {
	if errors.Is(err, envelope.ErrExpired) {
		return expired
	}
	return sig
}

// CooldownState is the agentk_cooldown entry for the service as read.
type CooldownState struct {
	// Present is false when the key does not exist (no earlier action).
	Present bool
	// Err is non-nil when the entry exists but could not be read or verified:
	// an unreadable cooldown denies.
	Err   error
	Value contracts.CooldownV1
}

// LedgerState is the agentk_releases entry for the service as read.
type LedgerState struct {
	Present bool
	Err     error
	Value   contracts.ReleaseLedgerV1
}

// Rules is the deployer's own configuration that the checks apply.
type Rules struct {
	// Allowlist is the services this deployer may act on, whatever any
	// decision says.
	Allowlist []string
	// Project is the compose project this deployer manages.
	Project string
	// Cooldown is how long after one action no other may run on a service.
	Cooldown time.Duration
}

// Input is everything Evaluate looks at.
type Input struct {
	Verified Verified
	Rules    Rules
	// NonceUsed is true when agentk_nonces already holds the approval's nonce.
	NonceUsed bool
	Cooldown  CooldownState
	Ledger    LedgerState
	// Freezes are the bridge-signed freezes read for the service and globally.
	Freezes FreezeState
	// Shadow is the deployer's own shadow configuration for the service
	// (AGENTK_SHADOW): a decision the gate did not mark shadow is still
	// treated as one.
	Shadow bool
	// Spent is the agentk_spent entry of the decision as read.
	Spent SpentState
	// Incident is the ingester's record of the incident as read.
	Incident IncidentState
	// Derived is the check of a derived decision's alert (RecoveryAlert);
	// unused for a decision about the alerted service.
	Derived DerivedState
	Now     time.Time
}

// SpentState is the agentk_spent entry of a decision as read.
type SpentState struct {
	// Err is non-nil when the entry could not be read: refuse.
	Err error
	// By is the nonce of the approval that consumed the decision; empty when
	// no approval has.
	By string
}

// IncidentState is what the deployer read of the incident's record in
// agentk_incidents (written by the ingester only).
type IncidentState struct {
	// Err is non-nil when the record exists but could not be read or
	// decoded: refuse.
	Err error
	// ResolvedAt is when the incident's alert resolved; zero while it fires
	// (or when the incident has no record: it did not come through this
	// fabric's ingester, e.g. a replay from disk).
	ResolvedAt time.Time
}

// FreezeState is what the adapter read from agentk_freezes. The zero value
// means both keys were read and hold nothing.
type FreezeState struct {
	// Err is non-nil when a key could not be read or verified: refuse.
	Err     error
	Freezes []contracts.FreezeV1
}

// Plan is what an approved rollback will do: both ends come from the
// deployer's own ledger, never from a message.
type Plan struct {
	Project string
	Service string
	From    contracts.Release
	To      contracts.Release
}

// Verdict is Evaluate's answer: exactly one of Refusal, Declined (the human
// said deny) or Plan applies. With Plan, Shadow says the plan must only be
// recorded, never run.
type Verdict struct {
	Refusal  *Refusal
	Declined bool
	Plan     Plan
	Shadow   bool
}

// Evaluate runs every check in a fixed order and returns the first refusal,
// a decline, or the plan. It reads no clock and does no I/O.
func Evaluate(in Input) Verdict {
	a := in.Verified.Approval
	if r := message(in); r != nil {
		return Verdict{Refusal: r}
	}
	switch a.Answer {
	case contracts.AnswerDeny:
		return Verdict{Declined: true}
	case contracts.AnswerApprove:
	default:
		return Verdict{Refusal: refuse(ReasonUnknownAnswer, "answer %q", a.Answer)}
	}
	if r := decision(in); r != nil {
		return Verdict{Refusal: r}
	}
	plan, r := move(in)
	if r != nil {
		return Verdict{Refusal: r}
	}
	// A shadow decision goes through every check above, so the record says
	// exactly what would have run; it is never run.
	return Verdict{Plan: plan, Shadow: in.Verified.Decision.Shadow || in.Shadow}
}

// message checks the approval message itself, whatever its answer: the
// binding to its decision, expiry, the nonce and the decision not spent.
func message(in Input) *Refusal {
	a := in.Verified.Approval
	if r := binding(in.Verified); r != nil {
		return r
	}
	if r := expiry(in.Verified, in.Now); r != nil {
		return r
	}
	if in.NonceUsed && !mutant.Off(mutant.DeployerNonce) {
		return refuse(ReasonReplay, "approval %s nonce %s already used", a.ApprovalID, in.Verified.ApprovalEnv.Nonce)
	}
	if r := spent(in.Spent, in.Verified); r != nil && !mutant.Off(mutant.DeployerDecisionSpent) {
		return r
	}
	return nil
}

// decision checks what an approval may act on: an allow verdict, a rollback,
// an allowlisted service, no freeze and no cooldown.
func decision(in Input) *Refusal {
	d := in.Verified.Decision
	if d.Verdict != contracts.VerdictAllow {
		return refuse(ReasonDecisionDenied, "decision %s verdict %q, failed checks %v", d.DecisionID, d.Verdict, d.FailedChecks)
	}
	if d.Action != "rollback" {
		return refuse(ReasonActionNotAllowed, "action %q", d.Action)
	}
	if r := derived(in); r != nil && !mutant.Off(mutant.DeployerOriginAlert) {
		return r
	}
	if !slices.Contains(in.Rules.Allowlist, d.Service) && !mutant.Off(mutant.DeployerAllowlist) {
		return refuse(ReasonNotAllowlisted, "service %q not in deployer allowlist %v", d.Service, in.Rules.Allowlist)
	}
	if r := frozen(in.Freezes, d.Service, in.Now); r != nil {
		return r
	}
	if r := cooldown(in.Cooldown, d.Service, in.Rules.Cooldown, in.Now); r != nil && !mutant.Off(mutant.DeployerCooldown) {
		return r
	}
	return nil
}

// move plans the rollback from the ledger and checks it is the move the
// human approved, with the alert not resolved since.
func move(in Input) (Plan, *Refusal) {
	a, d := in.Verified.Approval, in.Verified.Decision
	plan, r := target(in.Ledger, in.Rules.Project, d.Service)
	if r != nil {
		return plan, r
	}
	if r := approvedMove(plan, d); r != nil && !mutant.Off(mutant.DeployerTargetMatch) {
		return plan, r
	}
	if r := resolvedSince(in.Incident, a, d); r != nil && !mutant.Off(mutant.DeployerResolvedSince) {
		return plan, r
	}
	return plan, nil
}

// frozen refuses when an active freeze covers service, whatever the gate
// said: the deployer obeys a freeze on its own.
func frozen(f FreezeState, service string, now time.Time) *Refusal {
	if f.Err != nil {
		return refuse(ReasonFrozen, "freeze store unreadable for %s, counts as frozen: %v", service, f.Err)
	}
	for _, z := range f.Freezes {
		if z.Covers(service) && z.HoldsAt(now) {
			return refuse(ReasonFrozen, "service %s: freeze %s (%s) by %s until %s: %s", service, z.FreezeID, z.Scope, z.By, z.ExpiresAt.UTC().Format(time.RFC3339), z.Reason)
		}
	}
	return nil
}

// spent refuses a decision another approval already consumed. The entry
// names the nonce that consumed it: the same approval, delivered again after
// a crash between consuming and journalling, is not refused.
func spent(s SpentState, v Verified) *Refusal {
	if s.Err != nil {
		return refuse(ReasonStateUnread, "decision %s: spent-decision store: %v", v.Decision.DecisionID, s.Err)
	}
	if s.By != "" && s.By != v.ApprovalEnv.Nonce {
		return refuse(ReasonDecisionSpent, "decision %s was already consumed by another approval (nonce %s); approval %s gets nothing: one decision, at most one action",
			v.Decision.DecisionID, s.By, v.Approval.ApprovalID)
	}
	return nil
}

// ClockSkew is how far the Docker engine's clock and the gate's may differ
// when approvedMove compares a release's start with the decision's time.
const ClockSkew = 5 * time.Second

// approvedMove refuses a plan that is not the move the decision names: the
// human approved "current → target" as the gate saw the ledger, and the
// deployer's ledger must still say exactly that, with the running release
// deployed before the decision was made.
func approvedMove(p Plan, d contracts.DecisionV1) *Refusal {
	if d.CurrentImage == "" || d.RollbackTarget == "" {
		return refuse(ReasonTargetMismatch, "decision %s names no move (current %q, target %q): nothing was approved", d.DecisionID, d.CurrentImage, d.RollbackTarget)
	}
	if p.From.Image != d.CurrentImage || p.To.Image != d.RollbackTarget {
		return refuse(ReasonTargetMismatch, "decision %s approved %s → %s; the ledger now plans %s → %s",
			d.DecisionID, d.CurrentImage, d.RollbackTarget, p.From.Image, p.To.Image)
	}
	// DeployedAt is the Docker daemon's clock, DecidedAt the gate's: a start
	// within ClockSkew of the decision is the release the gate saw (its
	// image matched above); a later one is a redeploy since.
	if p.From.DeployedAt.After(d.DecidedAt.Add(ClockSkew)) {
		return refuse(ReasonLedgerMoved, "service %s: the running release %s was deployed at %s, after decision %s at %s",
			p.Service, p.From.Version, p.From.DeployedAt.UTC().Format(time.RFC3339), d.DecisionID, d.DecidedAt.UTC().Format(time.RFC3339))
	}
	return nil
}

// resolvedSince refuses an approval of an incident whose alert resolved,
// unless the human confirmed after being shown that resolve: the bridge sets
// ResolvedConfirmedAt to the resolve time the human saw.
func resolvedSince(s IncidentState, a contracts.ApprovalV1, d contracts.DecisionV1) *Refusal {
	if s.Err != nil {
		return refuse(ReasonIncidentUnread, "incident %s: %v", d.IncidentID, s.Err)
	}
	if s.ResolvedAt.IsZero() {
		return nil
	}
	if !a.ResolvedConfirmedAt.IsZero() && !a.ResolvedConfirmedAt.Before(s.ResolvedAt) {
		return nil
	}
	return refuse(ReasonAlertResolved, "incident %s: the alert resolved at %s and approval %s was not re-confirmed after the resolve; the service may have recovered on its own",
		d.IncidentID, s.ResolvedAt.UTC().Format(time.RFC3339), a.ApprovalID)
}

// binding checks the approval answers exactly this decision.
func binding(v Verified) *Refusal {
	a, d := v.Approval, v.Decision
	if got := v.DecisionEnv.Digest(); a.DecisionDigest != got && !mutant.Off(mutant.DeployerDigest) {
		return refuse(ReasonDigestMismatch, "approval %s binds digest %q, decision %s has %q", a.ApprovalID, a.DecisionDigest, d.DecisionID, got)
	}
	if a.DecisionID != d.DecisionID || a.Service != d.Service || a.IncidentID != d.IncidentID {
		return refuse(ReasonDecisionMismatch, "approval %s names decision %q service %q incident %q; decision is %q service %q incident %q",
			a.ApprovalID, a.DecisionID, a.Service, a.IncidentID, d.DecisionID, d.Service, d.IncidentID)
	}
	return nil
}

// expiry checks both the envelopes' and the payloads' expiry times. A decision
// or approval with no expiry at all is refused: it could be replayed forever.
func expiry(v Verified, now time.Time) *Refusal {
	if mutant.Off(mutant.DeployerExpiry) {
		return nil
	}
	dexp := v.DecisionEnv.ExpiresBy(v.Decision.ExpiresAt)
	if dexp.IsZero() {
		return refuse(ReasonNoExpiry, "decision %s has no expiry", v.Decision.DecisionID)
	}
	if !now.Before(dexp) {
		return refuse(ReasonDecisionExpired, "decision %s expired at %s, now %s", v.Decision.DecisionID, dexp.Format(time.RFC3339), now.UTC().Format(time.RFC3339))
	}
	aexp := v.ApprovalEnv.ExpiresBy(v.Approval.ExpiresAt)
	if aexp.IsZero() {
		return refuse(ReasonNoExpiry, "approval %s has no expiry", v.Approval.ApprovalID)
	}
	if !now.Before(aexp) {
		return refuse(ReasonApprovalExpired, "approval %s expired at %s, now %s", v.Approval.ApprovalID, aexp.Format(time.RFC3339), now.UTC().Format(time.RFC3339))
	}
	return nil
}

func cooldown(c CooldownState, service string, window time.Duration, now time.Time) *Refusal {
	if c.Err != nil {
		return refuse(ReasonCooldownUnread, "service %s: %v", service, c.Err)
	}
	if !c.Present {
		return nil
	}
	if c.Value.Service != service {
		return refuse(ReasonCooldownUnread, "cooldown entry for %q is about %q", service, c.Value.Service)
	}
	if until := c.Value.At.Add(window); now.Before(until) {
		return refuse(ReasonCooldownActive, "service %s: action %s at %s, cooldown until %s", service, c.Value.ActionID, c.Value.At.UTC().Format(time.RFC3339), until.UTC().Format(time.RFC3339))
	}
	return nil
}

func target(l LedgerState, project, service string) (Plan, *Refusal) {
	if l.Err != nil {
		return Plan{}, refuse(ReasonLedgerUnread, "service %s: %v", service, l.Err)
	}
	if !l.Present {
		return Plan{}, refuse(ReasonNoTarget, "service %s has no release ledger", service)
	}
	if l.Value.Service != service || l.Value.Project != project {
		return Plan{}, refuse(ReasonLedgerUnread, "ledger for %q is about %s/%s, want %s/%s", service, l.Value.Project, l.Value.Service, project, service)
	}
	to, ok := l.Value.RollbackTarget()
	if !ok {
		return Plan{}, refuse(ReasonNoTarget, "service %s ledger has %d release(s)", service, len(l.Value.Releases))
	}
	if to.Image == "" {
		return Plan{}, refuse(ReasonNoTarget, "service %s rollback target %s names no image", service, to.Version)
	}
	from := l.Value.Releases[len(l.Value.Releases)-1]
	return Plan{Project: project, Service: service, From: from, To: to}, nil
}
