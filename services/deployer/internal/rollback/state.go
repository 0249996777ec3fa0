package rollback

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/mutant"
	"agentk/services/deployer/internal/kvstore"
	"agentk/services/deployer/internal/ledger"
	"agentk/services/deployer/internal/policy"
)

// idset is the ids an action echoes from its approval.
type idset struct{ approval, decision, incident, service string }

func ids(a contracts.ApprovalV1) idset {
	return idset{a.ApprovalID, a.DecisionID, a.IncidentID, a.Service}
}

func journalFor(a contracts.ApprovalV1, state string, plan *policy.Plan, at time.Time, seq uint64) journal {
	return journal{ApprovalID: a.ApprovalID, DecisionID: a.DecisionID, IncidentID: a.IncidentID, Service: a.Service, State: state, Plan: plan, StartedAt: at, Seq: seq}
}

func (d *Deployer) base(id idset, received time.Time) contracts.ActionV1 {
	return contracts.ActionV1{
		ActionID: "action." + id.approval, IncidentID: id.incident, DecisionID: id.decision,
		ApprovalID: id.approval, Service: id.service, StartedAt: received,
	}
}

// seal signs act; suffix makes the message id of an action that is not the
// approval's one answer (a replay refusal) distinct.
func (d *Deployer) seal(act contracts.ActionV1, ref *policy.Refusal) (Result, error) {
	env, err := d.Signer.SealJSON(contracts.SubjectAction, act, d.Now(), 0)
	if err != nil {
		return Result{}, fmt.Errorf("%w: seal action %s: %w", ErrTransient, act.ActionID, err)
	}
	return Result{Action: act, Envelope: env, MsgID: act.ActionID, Refusal: ref}, nil
}

func (d *Deployer) refuse(id idset, ref *policy.Refusal, received time.Time, suffix string) (Result, error) {
	act := d.base(id, received)
	act.ActionID += suffix
	act.Outcome = contracts.OutcomeRefused
	act.Reason = ref.Text()
	act.ExitCode = -1
	act.FinishedAt = d.Now()
	act.TotalMs = act.FinishedAt.Sub(received).Milliseconds()
	return d.seal(act, ref)
}

// record consumes the nonce of an approval answered without acting. A
// conflict means a concurrent delivery consumed it: nothing to do.
func (d *Deployer) record(ctx context.Context, key string, j journal, res Result) {
	j.Action = res.Envelope.Marshal()
	b, _ := json.Marshal(j)
	_, _ = d.Nonces.Put(ctx, key, b, 0)
}

// finish marks the journal done with the sealed action, so a redelivery
// republishes it instead of acting again.
func (d *Deployer) finish(ctx context.Context, key string, j journal, rev uint64, res Result) {
	j.State = stateDone
	j.Action = res.Envelope.Marshal()
	b, _ := json.Marshal(j)
	_, _ = d.Nonces.Put(context.WithoutCancel(ctx), key, b, rev)
}

func (d *Deployer) readCooldown(ctx context.Context, service string, now time.Time) (policy.CooldownState, uint64) {
	e, err := d.Cooldown.Get(ctx, service)
	if errors.Is(err, kvstore.ErrNotFound) {
		return policy.CooldownState{}, 0
	}
	if err != nil {
		return policy.CooldownState{Present: true, Err: err}, 0
	}
	var c contracts.CooldownV1
	if _, err := d.Keyring.Open(e.Value, contracts.SubjectCooldown, now, &c); err != nil {
		return policy.CooldownState{Present: true, Err: err}, e.Revision
	}
	return policy.CooldownState{Present: true, Value: c}, e.Revision
}

// takeCooldown writes this action into the cooldown entry if it is still at
// the revision the checks saw: of two racing approvals, one wins.
func (d *Deployer) takeCooldown(ctx context.Context, service, actionID string, rev uint64, now time.Time) error {
	env, err := d.Signer.SealJSON(contracts.SubjectCooldown, contracts.CooldownV1{Service: service, ActionID: actionID, At: now}, now, 0)
	if err != nil {
		return err
	}
	_, err = d.Cooldown.Put(ctx, service, env.Marshal(), rev)
	return err
}

// readFreezes reads the service's and the global freeze, each a
// bridge-signed FreezeV1; anything unreadable fails closed.
func (d *Deployer) readFreezes(ctx context.Context, service string, now time.Time) policy.FreezeState {
	if d.Freezes == nil {
		return policy.FreezeState{Err: errors.New("no freeze store configured")}
	}
	var st policy.FreezeState
	var errs []error
	for _, k := range []string{contracts.FreezeGlobal, contracts.FreezeKey(service)} {
		e, err := d.Freezes.Get(ctx, k)
		if errors.Is(err, kvstore.ErrNotFound) {
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("freeze %s: %w", k, err))
			continue
		}
		var f contracts.FreezeV1
		if _, err := d.Keyring.Open(e.Value, contracts.SubjectFreeze, now, &f); err != nil {
			errs = append(errs, fmt.Errorf("freeze %s: %w", k, err))
			continue
		}
		if f.Scope != k {
			errs = append(errs, fmt.Errorf("freeze under key %s is about %q", k, f.Scope))
			continue
		}
		st.Freezes = append(st.Freezes, f)
	}
	st.Err = errors.Join(errs...)
	return st
}

func (d *Deployer) readLedger(ctx context.Context, service string, now time.Time) policy.LedgerState {
	l, _, err := d.ledger(ctx, service, now)
	if errors.Is(err, kvstore.ErrNotFound) {
		return policy.LedgerState{}
	}
	if err != nil {
		return policy.LedgerState{Present: true, Err: err}
	}
	return policy.LedgerState{Present: true, Value: l}
}

func (d *Deployer) ledger(ctx context.Context, service string, now time.Time) (contracts.ReleaseLedgerV1, uint64, error) {
	e, err := d.Releases.Get(ctx, service)
	if err != nil {
		return contracts.ReleaseLedgerV1{}, 0, err
	}
	var l contracts.ReleaseLedgerV1
	if _, err := d.Keyring.Open(e.Value, contracts.SubjectLedger, now, &l); err != nil {
		return contracts.ReleaseLedgerV1{}, e.Revision, err
	}
	return l, e.Revision, nil
}

// ErrLedger wraps failures to update the release ledger.
var ErrLedger = errors.New("rollback: ledger")

// Observe folds one observation of a running container into the service's
// signed ledger in KV, with compare-and-set, retrying when another writer
// got there first. A ledger that no longer verifies is never overwritten.
func (d *Deployer) Observe(ctx context.Context, o ledger.Observation) error {
	_, _, err := d.observe(ctx, o)
	return err
}

// observe is Observe returning the ledger as it was before o and whether
// this call's write changed it (false when the ledger already held o, or
// another writer folded o in first).
func (d *Deployer) observe(ctx context.Context, o ledger.Observation) (contracts.ReleaseLedgerV1, bool, error) {
	for range 5 {
		now := d.Now()
		cur, rev, err := d.ledger(ctx, o.Service, now)
		switch {
		case errors.Is(err, kvstore.ErrNotFound):
			rev = 0
		case err != nil:
			return cur, false, fmt.Errorf("%w: %s: %w", ErrLedger, o.Service, err)
		}
		next, changed := ledger.Observe(cur, o, now)
		if !changed {
			return cur, false, nil
		}
		if err := d.PutLedger(ctx, next, rev); errors.Is(err, kvstore.ErrConflict) {
			continue
		} else if err != nil {
			return cur, false, err
		}
		return cur, true, nil
	}
	return contracts.ReleaseLedgerV1{}, false, fmt.Errorf("%w: %s: too many concurrent writers", ErrLedger, o.Service)
}

// PutLedger seals l and writes it at rev (0: create).
func (d *Deployer) PutLedger(ctx context.Context, l contracts.ReleaseLedgerV1, rev uint64) error {
	env, err := d.Signer.SealJSON(contracts.SubjectLedger, l, d.Now(), 0)
	if err != nil {
		return fmt.Errorf("%w: seal %s: %w", ErrLedger, l.Service, err)
	}
	if _, err := d.Releases.Put(ctx, l.Service, env.Marshal(), rev); err != nil {
		return fmt.Errorf("%w: put %s: %w", ErrLedger, l.Service, err)
	}
	return nil
}

// PutCooldown seals c and writes it, for seeding a dry run's prior actions.
func (d *Deployer) PutCooldown(ctx context.Context, c contracts.CooldownV1) error {
	var rev uint64
	if e, err := d.Cooldown.Get(ctx, c.Service); err == nil {
		rev = e.Revision
	} else if !errors.Is(err, kvstore.ErrNotFound) {
		return err
	}
	env, err := d.Signer.SealJSON(contracts.SubjectCooldown, c, d.Now(), 0)
	if err != nil {
		return err
	}
	_, err = d.Cooldown.Put(ctx, c.Service, env.Marshal(), rev)
	return err
}

// resume answers a redelivery of an approval this deployer already took: the
// recorded action if it finished, else a reconciliation from Docker. It never
// acts again.
func (d *Deployer) resume(ctx context.Context, key string, j journal, rev uint64, received time.Time) (Result, error) {
	if j.State == stateDone && len(j.Action) > 0 {
		env, err := envelope.Parse(j.Action)
		if err != nil {
			return Result{}, fmt.Errorf("%w: journal of %s: %w", ErrTransient, j.ApprovalID, err)
		}
		var act contracts.ActionV1
		if err := json.Unmarshal(env.Payload, &act); err != nil {
			return Result{}, fmt.Errorf("%w: journal of %s: %w", ErrTransient, j.ApprovalID, err)
		}
		return Result{Action: act, Envelope: env, MsgID: act.ActionID}, nil
	}
	return d.reconcile(ctx, key, j, rev, received)
}

// reconcile settles an action interrupted by a crash from what Docker shows
// now, without running anything.
func (d *Deployer) reconcile(ctx context.Context, key string, j journal, rev uint64, now time.Time) (Result, error) {
	act := d.base(idset{j.ApprovalID, j.DecisionID, j.IncidentID, j.Service}, j.StartedAt)
	act.ExitCode = -1
	act.Outcome = contracts.OutcomeFailed
	act.Reason = "interrupted before acting; not retried: a human decides"
	if j.Plan != nil {
		act.FromImage, act.ToImage = j.Plan.From.Image, j.Plan.To.Image
		vctx, cancel := context.WithTimeout(ctx, d.ApplyTimeout)
		ver, err := d.Runtime.Verify(vctx, *j.Plan)
		cancel()
		switch {
		case err == nil && ver.DryRun:
			act.Outcome = contracts.OutcomeDryRun
			act.ExitCode = 0
			if p, ok := d.Runtime.(Planner); ok {
				act.Command = p.CommandFor(j.Plan.Service)
			}
			act.Reason = fmt.Sprintf("dry run interrupted by a restart, finished from its journal: would move %s from %s to %s; nothing was changed", j.Plan.Service, j.Plan.From.Image, j.Plan.To.Image)
		case err == nil && ver.Verified:
			act.Outcome = contracts.OutcomeRolledBack
			act.ContainerVerified = true
			act.Reason = "reconciled after a restart: container runs the target; recovery not checked, a human confirms"
		default:
			act.Reason = fmt.Sprintf("interrupted; reconciled after a restart: container runs %s, not %s (%s %v); not retried: a human decides", ver.ImageID, j.Plan.To.ImageID, ver.Detail, errOrEmpty(err))
		}
	}
	act.FinishedAt = now
	act.TotalMs = now.Sub(j.StartedAt).Milliseconds()
	res, err := d.seal(act, nil)
	if err != nil {
		return Result{}, err
	}
	d.finish(ctx, key, j, rev, res)
	return res, nil
}

// Reconcile settles, at start-up, every action a previous run began and never
// finished, from Docker's state. It returns the actions to publish. Run it
// before consuming approvals.
func (d *Deployer) Reconcile(ctx context.Context) ([]Result, error) {
	keys, err := d.Nonces.Keys(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w: reconcile: %w", ErrTransient, err)
	}
	var out []Result
	for _, k := range keys {
		e, err := d.Nonces.Get(ctx, k)
		if err != nil {
			continue
		}
		var j journal
		if json.Unmarshal(e.Value, &j) != nil || j.State != stateActing {
			continue
		}
		res, err := d.reconcile(ctx, k, j, e.Revision, d.Now())
		if err != nil {
			return out, err
		}
		out = append(out, res)
	}
	return out, nil
}

// ReplaceLedger overwrites the service's ledger whatever it held, for seeding
// a dry run from a recorded incident.
func (d *Deployer) ReplaceLedger(ctx context.Context, l contracts.ReleaseLedgerV1) error {
	var rev uint64
	if e, err := d.Releases.Get(ctx, l.Service); err == nil {
		rev = e.Revision
	} else if !errors.Is(err, kvstore.ErrNotFound) {
		return fmt.Errorf("%w: %s: %w", ErrLedger, l.Service, err)
	}
	return d.PutLedger(ctx, l, rev)
}

// spendRecord is the agentk_spent value: which approval consumed a decision.
type spendRecord struct {
	DecisionID string    `json:"decision_id"`
	ApprovalID string    `json:"approval_id"`
	Nonce      string    `json:"nonce"`
	At         time.Time `json:"at"`
}

// readSpent reads the decision's agentk_spent entry.
func (d *Deployer) readSpent(ctx context.Context, decisionID string) policy.SpentState {
	if d.Spent == nil {
		return policy.SpentState{Err: errors.New("no spent-decision store configured")}
	}
	e, err := d.Spent.Get(ctx, spentKey(decisionID))
	if errors.Is(err, kvstore.ErrNotFound) {
		return policy.SpentState{}
	}
	if err != nil {
		return policy.SpentState{Err: err}
	}
	var r spendRecord
	if err := json.Unmarshal(e.Value, &r); err != nil || r.Nonce == "" {
		return policy.SpentState{Err: fmt.Errorf("spent entry of %s unreadable: %v", decisionID, err)}
	}
	return policy.SpentState{By: r.Nonce}
}

// spend consumes the decision with a create-only write of its id. lost is
// true when the answer is final without acting: another approval consumed
// it first (a decision_spent refusal, journalled as this approval's answer),
// or the store failed (a transient error: redeliver). The same approval
// finding its own entry (a crash after spending) carries on.
func (d *Deployer) spend(ctx context.Context, v policy.Verified, received time.Time) (Result, bool, error) {
	a, key := v.Approval, v.ApprovalEnv.Nonce
	b, _ := json.Marshal(spendRecord{DecisionID: v.Decision.DecisionID, ApprovalID: a.ApprovalID, Nonce: key, At: received})
	_, err := d.Spent.Put(ctx, spentKey(v.Decision.DecisionID), b, 0)
	if err == nil || mutant.Off(mutant.DeployerDecisionSpent) {
		return Result{}, false, nil
	}
	if !errors.Is(err, kvstore.ErrConflict) {
		return Result{}, true, fmt.Errorf("%w: spent-decision store: %w", ErrTransient, err)
	}
	if st := d.readSpent(ctx, v.Decision.DecisionID); st.Err == nil && st.By == key {
		return Result{}, false, nil
	}
	res, serr := d.refuse(ids(a), &policy.Refusal{Reason: policy.ReasonDecisionSpent,
		Detail: "decision " + v.Decision.DecisionID + " consumed concurrently by another approval"}, received, "")
	if serr == nil {
		d.record(ctx, key, journalFor(a, stateDone, nil, received, 0), res)
	}
	return res, true, serr
}

// spentKey is the decision id as a KV key: ids outside the key alphabet are
// hashed, so no id can address another key.
func spentKey(decisionID string) string {
	for _, r := range decisionID {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return "h." + envelope.Digest([]byte(decisionID))
		}
	}
	if decisionID == "" || strings.HasPrefix(decisionID, ".") || strings.HasSuffix(decisionID, ".") || strings.Contains(decisionID, "..") {
		return "h." + envelope.Digest([]byte(decisionID))
	}
	return decisionID
}

// incidentRecord is the part of the ingester's incident record
// (services/ingester/internal/incidents.Record, JSON in agentk_incidents,
// key = incident id) the deployer reads. The ingester is the only writer
// (topology.Grants); the deployer may only read.
type incidentRecord struct {
	IncidentID string    `json:"incident_id"`
	State      string    `json:"state"`
	ResolvedAt time.Time `json:"resolved_at"`
}

// readIncident reads the incident's resolve time. A missing record is an
// incident that did not come through this fabric's ingester (the ingester
// writes the record before it publishes the incident's alert): nothing
// resolved. An unreadable one refuses.
func (d *Deployer) readIncident(ctx context.Context, incidentID string) policy.IncidentState {
	if d.Incidents == nil {
		return policy.IncidentState{Err: errors.New("no incident store configured")}
	}
	if incidentID == "" || strings.ContainsAny(incidentID, " \t\r\n*>") {
		return policy.IncidentState{Err: fmt.Errorf("incident id %q is not a key", incidentID)}
	}
	e, err := d.Incidents.Get(ctx, incidentID)
	if errors.Is(err, kvstore.ErrNotFound) {
		return policy.IncidentState{}
	}
	if err != nil {
		return policy.IncidentState{Err: err}
	}
	var r incidentRecord
	if err := json.Unmarshal(e.Value, &r); err != nil {
		return policy.IncidentState{Err: fmt.Errorf("record of %s: %w", incidentID, err)}
	}
	if r.IncidentID != incidentID {
		return policy.IncidentState{Err: fmt.Errorf("record under %s is about %q", incidentID, r.IncidentID)}
	}
	resolved := r.ResolvedAt
	if r.State == "resolved" && resolved.IsZero() {
		return policy.IncidentState{Err: fmt.Errorf("incident %s resolved at an unknown time", incidentID)}
	}
	return policy.IncidentState{ResolvedAt: resolved}
}
