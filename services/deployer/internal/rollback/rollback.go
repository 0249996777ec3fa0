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
	Marker   Marker
	// Stabilise is how long to wait after a verified rollback before asking
	// telemetry whether the service recovered.
	Stabilise time.Duration
	// ApplyTimeout bounds Apply and Verify together.
	ApplyTimeout time.Duration
	// Sleep waits d or until ctx is done; nil uses a timer.
	Sleep func(ctx context.Context, d time.Duration) error
	// Interrupt is a test seam, nil in production. It is called at each
	// InterruptPoint of acting; a non-nil error stops Handle there as a
	// crash would: the journal stays `acting`, nothing more is written or
	// verified, and Handle returns that error instead of an action.
	Interrupt func(ctx context.Context, point string, plan policy.Plan) error

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

// Interrupt points (Deployer.Interrupt).
const (
	// InterruptActing: the journal says `acting` and the cooldown is taken;
	// compose has not run.
	InterruptActing = "acting"
	// InterruptApplied: the compose command has run (exit 0); nothing is
	// verified, recorded or published yet.
	InterruptApplied = "applied"
)

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
		return d.refuse(ids(u.Approval), ref, received, "")
	}
	a := v.Approval
	key := v.ApprovalEnv.Nonce
	if _, busy := d.inflight.LoadOrStore(key, struct{}{}); busy {
		return Result{}, fmt.Errorf("%w: approval %s", ErrInFlight, a.ApprovalID)
	}
	defer d.inflight.Delete(key)

	in := policy.Input{Verified: v, Rules: d.Rules, Now: received}
	var nonceRev uint64
	je, err := d.Nonces.Get(ctx, key)
	switch {
	case err == nil:
		var j journal
		jerr := json.Unmarshal(je.Value, &j)
		if jerr == nil && j.ApprovalID == a.ApprovalID && (delivery > 1 || (seq != 0 && j.Seq == seq)) {
			return d.resume(ctx, key, j, je.Revision, received)
		}
		in.NonceUsed = true
		nonceRev = je.Revision
	case errors.Is(err, kvstore.ErrNotFound):
	case unreachable(err):
		return Result{}, fmt.Errorf("%w: nonce store: %w", ErrTransient, err)
	default:
		return d.refuse(ids(a), &policy.Refusal{Reason: policy.ReasonStateUnread, Detail: err.Error()}, received, "")
	}
	var cooldownRev uint64
	in.Cooldown, cooldownRev = d.readCooldown(ctx, v.Decision.Service, received)
	in.Ledger = d.readLedger(ctx, v.Decision.Service, received)
	in.Freezes = d.readFreezes(ctx, v.Decision.Service, received)
	in.Spent = d.readSpent(ctx, v.Decision.DecisionID)
	in.Incident = d.readIncident(ctx, v.Decision.IncidentID)
	for _, err := range []error{in.Cooldown.Err, in.Ledger.Err, in.Freezes.Err, in.Spent.Err, in.Incident.Err} {
		if err != nil && unreachable(err) {
			return Result{}, fmt.Errorf("%w: state store: %w", ErrTransient, err)
		}
	}
	in.Shadow = d.Shadow != nil && d.Shadow(v.Decision.Service)

	verdict := policy.Evaluate(in)
	if verdict.Refusal != nil {
		if verdict.Refusal.Reason == policy.ReasonReplay {
			// The original's action id belongs to the original.
			return d.refuse(ids(a), verdict.Refusal, received, ".replay."+strconv.FormatInt(received.UnixNano(), 10))
		}
		res, err := d.refuse(ids(a), verdict.Refusal, received, "")
		if err == nil {
			d.record(ctx, key, journalFor(a, stateDone, nil, received, seq), res)
		}
		return res, err
	}
	if verdict.Declined {
		if res, lost, err := d.spend(ctx, v, received); lost {
			return res, err
		}
		act := d.base(ids(a), received)
		act.Outcome = contracts.OutcomeNone
		act.Reason = "declined by " + a.Approver + " via " + a.Channel
		act.FinishedAt = received
		res, err := d.seal(act, nil)
		if err == nil {
			d.record(ctx, key, journalFor(a, stateDone, nil, received, seq), res)
		}
		return res, err
	}

	// The decision is consumed before anything is journalled or run: of two
	// approvals of one decision, whatever their ids, one gets the action.
	if res, lost, err := d.spend(ctx, v, received); lost {
		return res, err
	}
	plan := verdict.Plan
	if verdict.Shadow {
		res, err := d.seal(d.shadow(ids(a), plan, received), nil)
		if err == nil {
			d.record(ctx, key, journalFor(a, stateDone, &plan, received, seq), res)
		}
		return res, err
	}
	j := journalFor(a, stateActing, &plan, received, seq)
	jb, _ := json.Marshal(j)
	// nonceRev is 0 (create only) unless the nonce mutant let a used nonce
	// through: then the journal is overwritten, as it would be without the
	// nonce check.
	jrev, err := d.Nonces.Put(ctx, key, jb, nonceRev)
	if errors.Is(err, kvstore.ErrConflict) {
		return d.refuse(ids(a), &policy.Refusal{Reason: policy.ReasonReplay, Detail: "nonce " + key + " taken concurrently"}, received, ".replay."+strconv.FormatInt(received.UnixNano(), 10))
	}
	if err != nil {
		return Result{}, fmt.Errorf("%w: journal: %w", ErrTransient, err)
	}

	actionID := "action." + a.ApprovalID
	if err := d.takeCooldown(ctx, plan.Service, actionID, cooldownRev, received); err != nil {
		reason := policy.ReasonCooldownRace
		if !errors.Is(err, kvstore.ErrConflict) {
			reason = policy.ReasonCooldownUnread
		}
		res, serr := d.refuse(ids(a), &policy.Refusal{Reason: reason, Detail: err.Error()}, received, "")
		if serr == nil {
			d.finish(ctx, key, j, jrev, res)
		}
		return res, serr
	}

	if err := d.interrupt(ctx, InterruptActing, plan); err != nil {
		return Result{}, err
	}
	act, err := d.act(ctx, ids(a), plan, d.alertOf(v.Decision, received), received)
	if err != nil {
		return Result{}, err
	}
	res, err := d.seal(act, nil)
	if err != nil {
		return Result{}, err
	}
	d.finish(ctx, key, j, jrev, res)
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
// Its only error is the Interrupt seam's.
func (d *Deployer) act(ctx context.Context, id idset, plan policy.Plan, alert recoveryAlert, received time.Time) (contracts.ActionV1, error) {
	act := d.base(id, received)
	act.FromImage, act.ToImage = plan.From.Image, plan.To.Image
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), d.ApplyTimeout)
	defer cancel()

	t0 := d.Now()
	applied, err := d.Runtime.Apply(rctx, plan)
	act.ActionMs = d.Now().Sub(t0).Milliseconds()
	act.Command, act.ExitCode = applied.Command, applied.ExitCode
	if applied.DryRun {
		act.Outcome = contracts.OutcomeDryRun
		act.Reason = fmt.Sprintf("dry run: would move %s from %s to %s", plan.Service, plan.From.Image, plan.To.Image)
		act.FinishedAt = d.Now()
		act.TotalMs = act.FinishedAt.Sub(received).Milliseconds()
		return act, nil
	}
	if err == nil && applied.ExitCode == 0 {
		if ierr := d.interrupt(ctx, InterruptApplied, plan); ierr != nil {
			return act, ierr
		}
	}
	if err != nil || applied.ExitCode != 0 {
		act.Outcome = contracts.OutcomeFailed
		act.Reason = fmt.Sprintf("compose failed (exit %d): %v %s", applied.ExitCode, err, applied.Output)
		act.FinishedAt = d.Now()
		act.TotalMs = act.FinishedAt.Sub(received).Milliseconds()
		return act, nil
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
		return act, nil
	}
	act.ContainerVerified = true
	if d.Marker != nil {
		d.Marker.Mark(ctx, Mark{
			Project: plan.Project, Service: plan.Service,
			Version: plan.To.Version, PreviousVersion: plan.From.Version,
			Image: plan.To.Image, ImageID: ver.ImageID, DeploymentID: act.ActionID, At: verified,
		})
	}
	// The ledger is cut back to the target now, not when the Docker event
	// arrives: the gate must never see the bad release as current again.
	ledgerErr := d.Observe(ctx, ledger.Observation{Project: plan.Project, Service: plan.Service, Image: plan.To.Image, ImageID: ver.ImageID, Version: plan.To.Version, StartedAt: verified})

	act.Outcome = contracts.OutcomeRolledBack
	act.Recovered, act.Reason = d.recovered(ctx, RecoveryQuery{ActionID: act.ActionID, IncidentID: act.IncidentID, Service: plan.Service,
		Alert: alert.raw, AlertProblem: alert.problem, Since: verified})
	if ledgerErr != nil {
		act.Reason += "; release ledger NOT updated, the watcher will retry: " + ledgerErr.Error()
	}
	act.FinishedAt = d.Now()
	return act, nil
}

// recovered waits out the stabilisation window and asks telemetry. Without a
// checker, or when the checker fails, recovery is not claimed.
func (d *Deployer) recovered(ctx context.Context, q RecoveryQuery) (*bool, string) {
	if d.Recovery == nil {
		return nil, "container verified; no recovery checker configured: a human confirms recovery"
	}
	sleep := d.Sleep
	if sleep == nil {
		sleep = timerSleep
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

func timerSleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (d *Deployer) interrupt(ctx context.Context, point string, plan policy.Plan) error {
	if d.Interrupt == nil {
		return nil
	}
	return d.Interrupt(ctx, point, plan)
}

func errOrEmpty(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
