package rollback

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/wait"
	"agentk/services/deployer/internal/kvstore"
	"agentk/services/deployer/internal/ledger"
	"agentk/services/deployer/internal/policy"
)

var (
	// ErrInFlight means the same approval is being acted on right now (a
	// redelivery that arrived before the first delivery finished): retry later.
	ErrInFlight = errors.New("rollback: approval in flight")
	// ErrTransient wraps failures that a redelivery may fix (signing, KV writes).
	ErrTransient = errors.New("rollback: transient")
)

// Deployer turns approvals into actions. Every field is required except
// Recovery (nil: recovery is never claimed, Recovered stays nil) and Marker.
type Deployer struct {
	Keyring  *envelope.Keyring
	Signer   *envelope.Signer
	Now      func() time.Time
	Rules    policy.Rules
	Nonces   Bucket
	Cooldown Bucket
	Releases Bucket
	// Freezes is agentk_freezes; nil refuses every approval (fail closed).
	Freezes Getter
	// Spent is agentk_spent: one create-only key per consumed decision.
	Spent Bucket
	// Incidents is agentk_incidents (the ingester's, read only), for the
	// incident's resolve time; nil refuses every approval (fail closed).
	Incidents Getter

	// Shadow reports whether the deployer's own configuration puts service
	// in shadow mode; nil means never.
	Shadow   func(service string) bool
	Runtime  Runtime
	Recovery RecoveryChecker
	// Marker emits the marker of each verified rollback.
	Marker Marker
	// Announcer, when set, emits the marker of each deployment the ledger
	// watcher sees (Follow); nil: the watcher only keeps the ledger.
	Announcer Marker
	// Stabilise is how long to wait after a verified rollback before asking
	// telemetry whether the service recovered.
	Stabilise time.Duration
	// ApplyTimeout bounds Apply and Verify together.
	ApplyTimeout time.Duration
	// Sleep waits d or until ctx is done; nil uses a timer.
	Sleep func(ctx context.Context, d time.Duration) error

	inflight sync.Map
}

// Result is one handled approval: the action to publish and, for a refusal,
// why (for the adapter to log loudly).
type Result struct {
	Action   contracts.ActionV1
	Envelope envelope.Envelope
	// MsgID is the Nats-Msg-Id to publish with.
	MsgID   string
	Refusal *policy.Refusal
	// Unverified is set, and Action and Envelope are empty, when the message
	// failed verification: nothing may be published under its claimed ids.
	Unverified *policy.Unverified
}

// Journal states.
const (
	stateActing = "acting"
	stateDone   = "done"
)

// journal is the agentk_nonces value: the approval that used the nonce and
// how far acting on it got, so a crash mid-action is never acted on twice.
type journal struct {
	ApprovalID string          `json:"approval_id"`
	DecisionID string          `json:"decision_id"`
	IncidentID string          `json:"incident_id"`
	Service    string          `json:"service"`
	State      string          `json:"state"`
	Plan       *policy.Plan    `json:"plan,omitempty"`
	StartedAt  time.Time       `json:"started_at"`
	Action     json.RawMessage `json:"action,omitempty"`
	// Seq is the stream sequence of the approval message that wrote this
	// journal: a retry of that same message resumes, a copy published again
	// (another sequence) is a replay.
	Seq uint64 `json:"seq,omitempty"`
}

// Handle verifies and acts on one approval message. delivery counts
// deliveries of this message (1 on the first). A returned error is transient:
// the message should be redelivered; every final answer, refusals included,
// is a Result.
func (d *Deployer) Handle(ctx context.Context, raw []byte, delivery int) (Result, error) {
	return d.HandleMessage(ctx, raw, delivery, 0)
}

// HandleMessage is Handle for a message of stream sequence seq (0: unknown).
// A handler retried in process after a transient failure sees the same
// delivery count again; the sequence tells that retry (which must republish
// the recorded outcome) from a replayed copy of the approval (refused).
//
// It opens the message, decides from the approval's journal whether this is
// a fresh approval, a retry to resume or a replay (entryFor, pure), and then
// runs the named steps of that case.
func (d *Deployer) HandleMessage(ctx context.Context, raw []byte, delivery int, seq uint64) (Result, error) {
	received := d.Now()
	v, u, ref := policy.Open(d.Keyring, raw, received)
	if ref != nil && u.Forged {
		// A forged, tampered or wrongly signed message: its ids are claims.
		// No action is published (it would change the claimed incident's
		// status); the adapter logs, counts and dead-letters it.
		return Result{Refusal: ref, Unverified: &u}, nil
	}
	if ref != nil {
		// Refused on time alone: both signatures held, the ids are verified.
		// A redelivered one was approved in time and retried while it
		// could not be settled (the adapter never dead-letters it): say so
		// in the outcome the human reads.
		if delivery > 1 {
			ref.Detail += fmt.Sprintf("; not acted on before it expired: delivery %d, retried while a store or the bus could not settle it", delivery)
		}
		return d.refuse(ids(u.Approval), ref, received, "")
	}
	a := v.Approval
	key := v.ApprovalEnv.Nonce
	if _, busy := d.inflight.LoadOrStore(key, struct{}{}); busy {
		return Result{}, fmt.Errorf("%w: approval %s", ErrInFlight, a.ApprovalID)
	}
	defer d.inflight.Delete(key)

	look, err := d.lookUp(ctx, key)
	if err != nil && unreachable(err) {
		return Result{}, fmt.Errorf("%w: nonce store: %w", ErrTransient, err)
	}
	if err != nil {
		return d.refuse(ids(a), &policy.Refusal{Reason: policy.ReasonStateUnread, Detail: err.Error()}, received, "")
	}
	t := turn{v: v, key: key, received: received, seq: seq}
	switch entryFor(look, a.ApprovalID, delivery, seq) {
	case entryResume:
		return d.resume(ctx, key, look.j, look.rev, received)
	case entryReplay:
		t.nonceUsed, t.nonceRev = true, look.rev
	}
	return d.decide(ctx, t)
}

// Entries: what the journal says of one delivery of an approval.
type entry int

const (
	// entryFresh: the nonce was never used; check and act.
	entryFresh entry = iota
	// entryResume: this approval's own journal and a retry of the message
	// that wrote it (a redelivery, or the same stream sequence): republish
	// the recorded outcome or reconcile; never act again.
	entryResume
	// entryReplay: the nonce is used by another approval or another copy of
	// this one: the checks refuse it as a replay.
	entryReplay
)

// lookup is the approval nonce's journal entry as read from the store.
type lookup struct {
	found  bool
	parsed bool
	j      journal
	rev    uint64
}

// entryFor is the pure journal state decision.
func entryFor(l lookup, approvalID string, delivery int, seq uint64) entry {
	if !l.found {
		return entryFresh
	}
	if l.parsed && l.j.ApprovalID == approvalID && (delivery > 1 || (seq != 0 && l.j.Seq == seq)) {
		return entryResume
	}
	return entryReplay
}

// lookUp reads the nonce's journal; a missing one is not an error.
func (d *Deployer) lookUp(ctx context.Context, key string) (lookup, error) {
	je, err := d.Nonces.Get(ctx, key)
	if errors.Is(err, kvstore.ErrNotFound) {
		return lookup{}, nil
	}
	if err != nil {
		return lookup{}, err
	}
	l := lookup{found: true, rev: je.Revision}
	l.parsed = json.Unmarshal(je.Value, &l.j) == nil
	return l, nil
}

// turn is one verified approval being decided.
type turn struct {
	v         policy.Verified
	key       string
	received  time.Time
	seq       uint64
	nonceUsed bool
	nonceRev  uint64
}

func (t turn) id() idset { return ids(t.v.Approval) }

func (t turn) journal(state string, plan *policy.Plan) journal {
	return journalFor(t.v.Approval, state, plan, t.received, t.seq)
}

// decide gathers the state the policy reads, evaluates it, and runs the
// step of its verdict.
func (d *Deployer) decide(ctx context.Context, t turn) (Result, error) {
	in, cooldownRev, err := d.gather(ctx, t)
	if err != nil {
		return Result{}, err
	}
	verdict := policy.Evaluate(in)
	switch {
	case verdict.Refusal != nil:
		return d.refuseChecked(ctx, t, verdict.Refusal)
	case verdict.Declined:
		return d.decline(ctx, t)
	}
	// The decision is consumed before anything is journalled or run: of two
	// approvals of one decision, whatever their ids, one gets the action.
	if res, lost, err := d.spend(ctx, t.v, t.received); lost {
		return res, err
	}
	if verdict.Shadow {
		return d.answer(ctx, t, d.shadow(t.id(), verdict.Plan, t.received), &verdict.Plan)
	}
	return d.rollBack(ctx, t, verdict.Plan, cooldownRev)
}

// gather reads every store the policy checks. An unreachable store is a
// transient error; any other failure is the policy's to refuse.
func (d *Deployer) gather(ctx context.Context, t turn) (policy.Input, uint64, error) {
	dec := t.v.Decision
	in := policy.Input{Verified: t.v, Rules: d.Rules, Now: t.received, NonceUsed: t.nonceUsed}
	var cooldownRev uint64
	in.Cooldown, cooldownRev = d.readCooldown(ctx, dec.Service, t.received)
	in.Ledger = d.readLedger(ctx, dec.Service, t.received)
	in.Freezes = d.readFreezes(ctx, dec.Service, t.received)
	in.Spent = d.readSpent(ctx, dec.DecisionID)
	in.Incident = d.readIncident(ctx, dec.IncidentID)
	if dec.Origin != nil {
		_, err := policy.RecoveryAlert(d.Keyring, dec, t.received)
		in.Derived = policy.DerivedState{Checked: true, Err: err}
	}
	for _, err := range []error{in.Cooldown.Err, in.Ledger.Err, in.Freezes.Err, in.Spent.Err, in.Incident.Err} {
		if err != nil && unreachable(err) {
			return in, 0, fmt.Errorf("%w: state store: %w", ErrTransient, err)
		}
	}
	in.Shadow = d.Shadow != nil && d.Shadow(dec.Service)
	return in, cooldownRev, nil
}

// refuseChecked answers a refusal of the checks. A replay's action id gets
// a suffix (the original's id belongs to the original) and its journal is
// left alone; any other refusal consumes the nonce.
func (d *Deployer) refuseChecked(ctx context.Context, t turn, ref *policy.Refusal) (Result, error) {
	if ref.Reason == policy.ReasonReplay {
		return d.refuse(t.id(), ref, t.received, replaySuffix(t.received))
	}
	res, err := d.refuse(t.id(), ref, t.received, "")
	if err == nil {
		d.record(ctx, t.key, t.journal(stateDone, nil), res)
	}
	return res, err
}

func replaySuffix(at time.Time) string { return ".replay." + strconv.FormatInt(at.UnixNano(), 10) }

// decline consumes the decision and answers a human's "no".
func (d *Deployer) decline(ctx context.Context, t turn) (Result, error) {
	if res, lost, err := d.spend(ctx, t.v, t.received); lost {
		return res, err
	}
	a := t.v.Approval
	act := d.base(t.id(), t.received)
	act.Outcome = contracts.OutcomeNone
	act.Reason = "declined by " + a.Approver + " via " + a.Channel
	act.FinishedAt = t.received
	return d.answer(ctx, t, act, nil)
}

// answer seals an action that changed nothing and journals it done.
func (d *Deployer) answer(ctx context.Context, t turn, act contracts.ActionV1, plan *policy.Plan) (Result, error) {
	res, err := d.seal(act, nil)
	if err == nil {
		d.record(ctx, t.key, t.journal(stateDone, plan), res)
	}
	return res, err
}

// rollBack journals the plan as acting, takes the cooldown, acts, and marks
// the journal done with the sealed action.
func (d *Deployer) rollBack(ctx context.Context, t turn, plan policy.Plan, cooldownRev uint64) (Result, error) {
	j := t.journal(stateActing, &plan)
	jb, _ := json.Marshal(j)
	// nonceRev is 0 (create only) unless the nonce mutant let a used nonce
	// through: then the journal is overwritten, as it would be without the
	// nonce check.
	jrev, err := d.Nonces.Put(ctx, t.key, jb, t.nonceRev)
	if errors.Is(err, kvstore.ErrConflict) {
		return d.refuse(t.id(), &policy.Refusal{Reason: policy.ReasonReplay, Detail: "nonce " + t.key + " taken concurrently"}, t.received, replaySuffix(t.received))
	}
	if err != nil {
		return Result{}, fmt.Errorf("%w: journal: %w", ErrTransient, err)
	}
	if err := d.takeCooldown(ctx, plan.Service, "action."+t.v.Approval.ApprovalID, cooldownRev, t.received); err != nil {
		reason := policy.ReasonCooldownRace
		if !errors.Is(err, kvstore.ErrConflict) {
			reason = policy.ReasonCooldownUnread
		}
		res, serr := d.refuse(t.id(), &policy.Refusal{Reason: reason, Detail: err.Error()}, t.received, "")
		if serr == nil {
			d.finish(ctx, t.key, j, jrev, res)
		}
		return res, serr
	}
	act := d.act(ctx, t.id(), plan, d.alertOf(t.v.Decision, t.received), t.received)
	res, err := d.seal(act, nil)
	if err != nil {
		return Result{}, err
	}
	d.finish(ctx, t.key, j, jrev, res)
	return res, nil
}

// shadow records what act would do, changing nothing: no compose command,
// no cooldown taken, no ledger change, no marker.
func (d *Deployer) shadow(id idset, plan policy.Plan, received time.Time) contracts.ActionV1 {
	act := d.base(id, received)
	act.Outcome = contracts.OutcomeShadow
	act.FromImage, act.ToImage = plan.From.Image, plan.To.Image
	if p, ok := d.Runtime.(Planner); ok {
		act.Command = p.CommandFor(plan.Service)
	}
	act.Reason = fmt.Sprintf("shadow: would move %s from %s to %s; nothing was changed", plan.Service, plan.From.Image, plan.To.Image)
	act.FinishedAt = d.Now()
	act.TotalMs = act.FinishedAt.Sub(received).Milliseconds()
	return act
}

// act runs the plan. The runtime gets a context that survives shutdown,
// bounded by ApplyTimeout: a compose command is never killed half-way
// because the process was asked to stop.
func (d *Deployer) act(ctx context.Context, id idset, plan policy.Plan, alert recoveryAlert, received time.Time) contracts.ActionV1 {
	act := d.base(id, received)
	act.FromImage, act.ToImage = plan.From.Image, plan.To.Image
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), d.ApplyTimeout)
	defer cancel()

	t0 := d.Now()
	applied, err := d.Runtime.Apply(rctx, plan)
	act.ActionMs = d.Now().Sub(t0).Milliseconds()
	act.Command, act.ExitCode = applied.Command, applied.ExitCode
	switch {
	case applied.DryRun:
		act.Outcome = contracts.OutcomeDryRun
		act.Reason = fmt.Sprintf("dry run: would move %s from %s to %s", plan.Service, plan.From.Image, plan.To.Image)
		return d.finished(act, received)
	case err != nil || applied.ExitCode != 0:
		act.Outcome = contracts.OutcomeFailed
		act.Reason = fmt.Sprintf("compose failed (exit %d): %v %s", applied.ExitCode, err, applied.Output)
		return d.finished(act, received)
	}

	t1 := d.Now()
	ver, err := d.Runtime.Verify(rctx, plan)
	verified := d.Now()
	act.VerifyMs = verified.Sub(t1).Milliseconds()
	act.TotalMs = verified.Sub(received).Milliseconds()
	if err != nil || !ver.Verified {
		act.Outcome = contracts.OutcomeFailed
		act.Reason = fmt.Sprintf("container not verified on %s (%s): runs %s: %s %v", plan.To.Image, plan.To.ImageID, ver.ImageID, ver.Detail, errOrEmpty(err))
		act.FinishedAt = d.Now()
		return act
	}
	return d.settle(ctx, act, plan, ver, alert, verified)
}

// finished stamps the end of an action that ended at apply.
func (d *Deployer) finished(act contracts.ActionV1, received time.Time) contracts.ActionV1 {
	act.FinishedAt = d.Now()
	act.TotalMs = act.FinishedAt.Sub(received).Milliseconds()
	return act
}

// settle records a verified rollback: the deployment marker, the ledger cut
// back to the target, and the recovery verdict.
func (d *Deployer) settle(ctx context.Context, act contracts.ActionV1, plan policy.Plan, ver Verification, alert recoveryAlert, verified time.Time) contracts.ActionV1 {
	act.ContainerVerified = true
	if d.Marker != nil {
		d.Marker.Mark(ctx, Mark{
			Project: plan.Project, Service: plan.Service,
			Version: plan.To.Version, PreviousVersion: plan.From.Version,
			Image: plan.To.Image, ImageID: ver.ImageID, DeploymentID: act.ActionID, At: verified,
			Kind: ledger.KindRollback, Actor: ActorDeployer,
		})
	}
	// The ledger is cut back to the target now, not when the Docker event
	// arrives: the gate must never see the bad release as current again.
	ledgerErr := d.Observe(ctx, ledger.Observation{Project: plan.Project, Service: plan.Service, Image: plan.To.Image, ImageID: ver.ImageID, Version: plan.To.Version, StartedAt: verified})

	act.Outcome = contracts.OutcomeRolledBack
	// Recovery is the alerted service's SLO: for a derived decision, not
	// the service rolled back (issue 33).
	checked := plan.Service
	if alert.service != "" {
		checked = alert.service
	}
	act.Recovered, act.Reason = d.recovered(ctx, RecoveryQuery{ActionID: act.ActionID, IncidentID: act.IncidentID, Service: checked,
		Alert: alert.raw, AlertProblem: alert.problem, Since: verified})
	if ledgerErr != nil {
		act.Reason += "; release ledger NOT updated, the watcher will retry: " + ledgerErr.Error()
	}
	act.FinishedAt = d.Now()
	return act
}

// recovered waits out the stabilisation window and asks telemetry. Without a
// checker, or when the checker fails, recovery is not claimed.
func (d *Deployer) recovered(ctx context.Context, q RecoveryQuery) (*bool, string) {
	if d.Recovery == nil {
		return nil, "container verified; no recovery checker configured: a human confirms recovery"
	}
	sleep := d.Sleep
	if sleep == nil {
		sleep = wait.Sleep
	}
	if err := sleep(ctx, d.Stabilise); err != nil {
		return nil, "container verified; stabilisation interrupted: " + err.Error()
	}
	ok, detail, err := d.Recovery.Recovered(ctx, q)
	if err != nil {
		f := false
		return &f, "container verified; recovery unknown (counts as not recovered, back to a human): " + err.Error()
	}
	if !ok {
		return &ok, "container verified; not recovered, back to a human (no second automatic rollback): " + detail
	}
	return &ok, "container verified; recovered: " + detail
}

func errOrEmpty(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
