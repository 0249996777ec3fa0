package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"agentk/cmd/agentk/internal/harness"
	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/contracts/incident"
	"agentk/platform/bus"
	"agentk/platform/fabric"
	"agentk/services/bridge/fakeslack"

	"github.com/nats-io/nats.go"
)

// observer watches every message of the run, as an operator would, and
// verifies each signature before believing it.
type observer struct {
	conn *bus.Conn
	sub  *nats.Subscription
	msgs chan *nats.Msg
	kr   *envelope.Keyring
	now  func() time.Time
	// bridge signs the replayer's second approval, as a bridge that broke its
	// one-answer-per-decision rule (or an attacker holding its key) would.
	bridge *envelope.Signer
}

func newObserver(ctx context.Context, f *fabric.Fabric, now func() time.Time) (*observer, error) {
	c, err := f.Admin(ctx)
	if err != nil {
		return nil, err
	}
	o := &observer{conn: c, msgs: make(chan *nats.Msg, 1024), kr: f.Keyring(), now: now, bridge: f.Signer(envelope.RoleBridge)}
	o.sub, err = c.NATS().ChanSubscribe("agentk.>", o.msgs)
	if err != nil {
		_ = c.Close()
		return nil, err
	}
	if err := c.NATS().Flush(); err != nil {
		_ = c.Close()
		return nil, err
	}
	return o, nil
}

func (o *observer) close() {
	_ = o.sub.Unsubscribe()
	_ = o.conn.Close()
}

// outcome is what the observer saw of one incident.
type outcome struct {
	alert    *contracts.AlertV1
	report   *contracts.ReportV1
	review   *contracts.ReviewV1
	decision *contracts.DecisionV1
	// derived is the gate's derived decision about the service where the
	// alerted service's failures begin (issue 33), when it made one; last is
	// the decision the latest message brought.
	derived  *contracts.DecisionV1
	last     *contracts.DecisionV1
	approval *contracts.ApprovalV1
	// approvalRaw is the first approval message as the bridge published it.
	approvalRaw []byte
	action      *contracts.ActionV1
	actions     []contracts.ActionV1
	decisions   map[string]contracts.DecisionV1
	// evidence is every sandbox-signed evidence seen, by payload digest:
	// what a review's evidence_refs name.
	evidence map[string]contracts.EvidenceV1
}

// take verifies and decodes one message into the outcome; it reports which
// subject it was, or "" for messages it does not track.
func (o *observer) take(m *nats.Msg, out *outcome) (string, error) {
	if m.Subject == contracts.SubjectEvidence {
		return "", o.takeEvidence(m, out)
	}
	dst := observedMessage(m.Subject)
	if dst == nil {
		return "", nil
	}
	if _, err := o.kr.Open(m.Data, m.Subject, o.now(), dst); err != nil {
		return "", fmt.Errorf("replay: observed %s failed verification: %w", m.Subject, err)
	}
	out.record(dst, m.Data)
	return m.Subject, nil
}

// observedMessage returns a new message of the contract published on
// subject, or nil for subjects the observer does not track.
func observedMessage(subject string) any {
	switch subject {
	case contracts.SubjectAlert:
		return new(contracts.AlertV1)
	case contracts.SubjectReport:
		return new(contracts.ReportV1)
	case contracts.SubjectReview:
		return new(contracts.ReviewV1)
	case contracts.SubjectDecision:
		return new(contracts.DecisionV1)
	case contracts.SubjectApproval:
		return new(contracts.ApprovalV1)
	case contracts.SubjectAction:
		return new(contracts.ActionV1)
	default:
		return nil
	}
}

// record keeps one verified message in the outcome; data is its signed
// envelope as observed, kept for the first approval.
func (out *outcome) record(msg any, data []byte) {
	switch v := msg.(type) {
	case *contracts.AlertV1:
		if out.alert == nil {
			out.alert = v
		}
	case *contracts.ReportV1:
		out.report = v
	case *contracts.ReviewV1:
		out.review = v
	case *contracts.DecisionV1:
		out.recordDecision(v)
	case *contracts.ApprovalV1:
		if out.approval == nil {
			out.approval = v
			out.approvalRaw = append([]byte(nil), data...)
		}
	case *contracts.ActionV1:
		out.actions = append(out.actions, *v)
		if out.action == nil {
			out.action = v
		}
	}
}

// recordDecision keeps every decision by id and the last one, and the
// first decision on the incident and the first derived one apart.
func (out *outcome) recordDecision(v *contracts.DecisionV1) {
	out.decisions[v.DecisionID] = *v
	out.last = v
	switch {
	case v.Origin != nil:
		if out.derived == nil {
			out.derived = v
		}
	case out.decision == nil:
		out.decision = v
	}
}

// follow waits for the incident to reach its end: a denial, or an approval
// answered and acted on.
func (o *observer) follow(ctx context.Context, inc *incident.Incident, slack *fakeslack.Server, interactionsURL, secret string,
	now func() time.Time, opts Options, p progress) (*outcome, error) {
	f := &follower{o: o, out: &outcome{decisions: map[string]contracts.DecisionV1{}}, opts: opts, p: p,
		approver: harness.Approver{Slack: slack, URL: interactionsURL, Secret: secret, ApproverID: approverID, Now: now, Ask: opts.Interactive,
			Clicks: func(human bool, action string) {
				who := "the auto-approver (replay; no human involved)"
				if human {
					who = "you"
				}
				p.step("Slack message posted with Approve/Deny buttons; %s clicks %s", who, harness.ButtonName(action))
			}}}
	out := f.out
	for {
		select {
		case <-ctx.Done():
			return out, fmt.Errorf("%w: %s", ErrTimeout, o.stage(out))
		case <-f.replayed:
			p.step("no further answer from the deployer to the replayed approvals")
			return out, nil
		case <-f.derivedWait:
			p.step("no decision about the service where the failures begin followed the denial")
			return out, nil
		case err := <-f.clickErr:
			if err != nil {
				return out, fmt.Errorf("replay: %w", err)
			}
			f.clickErr = nil
		case m := <-o.msgs:
			subj, err := o.take(m, out)
			if err != nil {
				return out, err
			}
			if done, err := f.on(ctx, subj); done || err != nil {
				return out, err
			}
		}
	}
}

// follower is follow's state between two messages.
type follower struct {
	o        *observer
	out      *outcome
	opts     Options
	p        progress
	approver harness.Approver
	clicked  bool
	clickErr chan error
	// After the replayer's approvals, the deployer answers each; the replay
	// waits for those answers, or replayWait after the last, whichever is first.
	replayed <-chan time.Time
	// derivedWait fires when a derived decision the review's evidence
	// announced did not follow the denial of the alerted service.
	derivedWait <-chan time.Time
}

// on prints what a message of subj brought and acts on it; it reports whether
// the incident has ended.
func (f *follower) on(ctx context.Context, subj string) (bool, error) {
	out, p := f.out, f.p
	switch subj {
	case contracts.SubjectAlert:
		a := out.alert
		p.step("alert %s: service %s, burn rate %g (%s), incident %s", a.AlertName, a.Service, a.BurnRate, orNone(a.BurnRateSource), a.IncidentID)
	case contracts.SubjectReport:
		r := out.report
		p.step("investigation by %s: %d claims, %d tool calls, %d evidence records, tokens %d in / %d out, completed=%v",
			r.Investigator, len(r.Claims), r.ToolCalls, len(r.Evidence)+len(r.EvidenceRefs), r.TokensIn, r.TokensOut, r.Completed)
	case contracts.SubjectReview:
		printReview(p, out.review)
	case contracts.SubjectDecision:
		return f.onDecision(ctx), nil
	case contracts.SubjectApproval:
		a := out.approval
		p.step("approval: %s by %s via %s (signed by the bridge, bound to digest %s…)", a.Answer, a.Approver, a.Channel, a.DecisionDigest[:12])
	case contracts.SubjectAction:
		return f.onAction(ctx)
	}
	return false, nil
}

func printReview(p progress, r *contracts.ReviewV1) {
	p.step("review: %d claims kept, %d dropped%s", len(r.Kept), len(r.Dropped), insufficient(r))
	for _, c := range r.Kept {
		p.step("  kept    %-20s %.2f  %s", c.Class, c.Confidence, clip(c.Statement, 90))
	}
	for _, d := range r.Dropped {
		p.step("  dropped %-20s %.2f  because %s", d.Claim.Class, d.Claim.Confidence, clip(strings.Join(d.Reasons, "; "), 90))
	}
}

// onDecision prints the gate's decision; an allow is answered (once) by the
// approver. The gate ends the incident when every decision it will make is
// in and none allowed: the alerted service's, and the derived one about the
// service where its failures begin when the evidence names one (issue 33).
func (f *follower) onDecision(ctx context.Context) bool {
	d, p := f.out.last, f.p
	if o := d.Origin; o != nil {
		p.step("gate: %s on %s, derived from the alert on %s (decision %s): %s", strings.ToUpper(d.Verdict), d.Service, o.AlertedService, d.DecisionID, o.Reason)
	} else {
		p.step("gate: %s (decision %s)", strings.ToUpper(d.Verdict), d.DecisionID)
	}
	for _, c := range d.Checks {
		p.step("  %s %-18s %s", harness.Mark(c.Passed), c.Name, clip(c.Reason, 100))
	}
	if d.Verdict != contracts.VerdictAllow {
		if d.NextStep != "" {
			p.step("next step for the on-call human: %s", d.NextStep)
		}
		return f.decided()
	}
	if !f.clicked {
		f.clicked = true
		f.clickErr = make(chan error, 1)
		go func(d contracts.DecisionV1) { f.clickErr <- f.approver.Answer(ctx, d) }(*d)
	}
	return false
}

// decided reports whether the incident ended at the gate: nothing allowed
// was answered, the alerted service's decision is in and so is the derived
// one when the review's evidence names a failure origin. While one is
// awaited it arms derivedWait, so a gate that made none cannot hang the replay.
func (f *follower) decided() bool {
	out := f.out
	switch {
	case f.clicked, out.decision == nil:
		return false
	case out.derived == nil && expectsDerived(out):
		if f.derivedWait == nil {
			f.derivedWait = time.After(replayWait)
		}
		return false
	}
	return true
}

// expectsDerived reports whether the review's evidence, as observed, names
// another service where the alerted service's failures begin: the gate then
// publishes a derived decision after the alerted one.
func expectsDerived(out *outcome) bool {
	if out.review == nil || out.decision == nil {
		return false
	}
	svc := out.decision.Service
	seen := func(ev contracts.EvidenceV1) bool {
		o := ev.Facts.Origin
		return ev.InvestigationID == out.review.InvestigationID && ev.Service == svc && o != nil && o.Service != "" && o.Service != svc
	}
	for _, ref := range out.review.EvidenceRefs {
		if ev, ok := out.evidence[ref.Digest]; ok && seen(ev) {
			return true
		}
	}
	for _, raw := range out.review.Evidence {
		var ev contracts.EvidenceV1
		if e, err := envelope.Parse(raw); err == nil && json.Unmarshal(e.Payload, &ev) == nil && seen(ev) {
			return true
		}
	}
	return false
}

// onAction prints the deployer's action; the first ends the incident unless
// the replayer persona replays the approval, whose answers end it.
func (f *follower) onAction(ctx context.Context) (bool, error) {
	out, p := f.out, f.p
	a := &out.actions[len(out.actions)-1]
	p.step("deployer: %s %s → %s", a.Outcome, orNone(a.FromImage), orNone(a.ToImage))
	if len(a.Command) > 0 {
		p.step("  command: %s", strings.Join(a.Command, " "))
	}
	if a.Reason != "" {
		p.step("  reason: %s", a.Reason)
	}
	if len(out.actions) > 1 {
		p.step("deployer answered a replayed approval: %s %s", a.Outcome, a.Reason)
		return len(out.actions) == 3, nil
	}
	if !f.opts.ReplayApproval || out.approvalRaw == nil {
		return true, nil
	}
	if err := f.o.replayApproval(ctx, out, p); err != nil {
		return true, err
	}
	f.replayed = time.After(replayWait)
	return false, nil
}

// replayWait bounds how long the replay waits for the deployer's answer to a
// replayed approval; the deployer answers each approval it verifies.
const replayWait = 10 * time.Second

// replayApproval is the replayer persona's attack, after the first approval
// was acted on: the bridge's message published again under a new message id
// (the same approval id and nonce), then a second approval of the same
// decision, freshly signed with the bridge's key under a new approval id, as
// in issue 17's report.
func (o *observer) replayApproval(ctx context.Context, out *outcome, p progress) error {
	env, err := envelope.Parse(out.approvalRaw)
	if err != nil {
		return fmt.Errorf("replay: the observed approval does not parse: %w", err)
	}
	a := *out.approval
	if err := o.conn.Publish(ctx, contracts.SubjectApproval, bus.Out{Envelope: env, MsgID: "replayed." + a.ApprovalID}, nil); err != nil {
		return fmt.Errorf("replay: publish the replayed approval: %w", err)
	}
	p.step("replayer: the bridge's approval %s published again", a.ApprovalID)
	now := o.now()
	second := a
	second.ApprovalID = a.ApprovalID + "-again"
	second.AnsweredAt = now.UTC()
	sealed, err := o.bridge.SealJSON(contracts.SubjectApproval, second, now, a.ExpiresAt.Sub(now))
	if err != nil {
		return fmt.Errorf("replay: seal the second approval: %w", err)
	}
	if err := o.conn.Publish(ctx, contracts.SubjectApproval, bus.Out{Envelope: sealed, MsgID: "approval." + second.ApprovalID}, nil); err != nil {
		return fmt.Errorf("replay: publish the second approval: %w", err)
	}
	p.step("replayer: a second bridge-signed approval %s of decision %s published", second.ApprovalID, a.DecisionID)
	return nil
}

func (o *observer) stage(out *outcome) string {
	switch {
	case out.alert == nil:
		return "no alert was published"
	case out.report == nil:
		return "no investigation report was published"
	case out.review == nil:
		return "no review was published"
	case out.decision == nil:
		return "no decision was published"
	case out.approval == nil:
		return "the allowed decision was never answered"
	default:
		return "the approval was never acted on"
	}
}

// takeEvidence verifies one evidence message and keeps it by digest.
func (o *observer) takeEvidence(m *nats.Msg, out *outcome) error {
	var ev contracts.EvidenceV1
	env, err := o.kr.Open(m.Data, m.Subject, o.now(), &ev)
	if err != nil {
		return fmt.Errorf("replay: observed %s failed verification: %w", m.Subject, err)
	}
	if out.evidence == nil {
		out.evidence = map[string]contracts.EvidenceV1{}
	}
	out.evidence[env.Digest()] = ev
	return nil
}

// fill copies the outcome into the result.
func (out *outcome) fill(r *Result) {
	r.Diagnosis = contracts.ClassUnknown
	if out.alert != nil {
		r.IncidentID = out.alert.IncidentID
	}
	if out.report != nil {
		r.Completed = out.report.Completed
		r.ToolCalls = out.report.ToolCalls
		r.TokensIn, r.TokensOut = out.report.TokensIn, out.report.TokensOut
	}
	if rv := out.review; rv != nil {
		r.ClaimsPublished, r.ClaimsDropped = len(rv.Kept), len(rv.Dropped)
		if rv.Best != nil {
			r.Diagnosis, r.Confidence = rv.Best.Class, rv.Best.Confidence
		}
		r.UnsupportedClaims = unsupported(rv, out.evidence)
	}
	r.Action = contracts.OutcomeNone
	if d := out.decision; d != nil {
		r.Verdict = d.Verdict
		r.DecisionID = d.DecisionID
		if d.FailedChecks != nil {
			r.FailedChecks = d.FailedChecks
		}
		r.FailedReasons = failedReasons(d.Checks)
		r.RollbackTarget = d.RollbackTarget
	}
	if a := out.approval; a != nil {
		r.Approver = a.Approver
	}
	if d := out.derived; d != nil {
		r.Culprit = &Culprit{Service: d.Service, Verdict: d.Verdict, FailedChecks: d.FailedChecks}
	}
	if a := out.action; a != nil {
		r.Action = a.Outcome
		r.ActionReason = a.Reason
		r.Command = a.Command
		// The rollback target is the alerted decision's; an action on the
		// derived decision moved another service.
		if a.ToImage != "" && (out.decision == nil || a.DecisionID == out.decision.DecisionID) {
			r.RollbackTarget = a.ToImage
		}
	}
	actedOn := map[string]int{}
	for _, a := range out.actions {
		d, ok := out.decisions[a.DecisionID]
		acted := a.Outcome == contracts.OutcomeDryRun || a.Outcome == contracts.OutcomeRolledBack
		if acted && (!ok || d.Verdict != contracts.VerdictAllow) {
			r.OutOfGateActions++
		}
		if acted {
			if actedOn[a.DecisionID]++; actedOn[a.DecisionID] > 1 {
				r.RepeatActions++
			}
		}
	}
}

// unsupported counts kept claims that an independent look finds unsupported:
// citing nothing, citing an id that is not among the review's own
// sandbox-recorded evidence for this investigation, or stating a number that
// no number token of the cited evidence holds in its unit (grounding.go).
// Evidence the review names by reference is looked up in seen, the
// evidence observed on the bus by digest.
func unsupported(rv *contracts.ReviewV1, seen map[string]contracts.EvidenceV1) int {
	tokens := map[string][]token{}
	add := func(ev contracts.EvidenceV1) {
		if ev.InvestigationID == rv.InvestigationID {
			tokens[ev.ID] = keptEvidenceTokens(ev.Compact)
		}
	}
	for _, raw := range rv.Evidence {
		e, err := envelope.Parse(raw)
		if err != nil {
			continue
		}
		var ev contracts.EvidenceV1
		if json.Unmarshal(e.Payload, &ev) == nil {
			add(ev)
		}
	}
	for _, ref := range rv.EvidenceRefs {
		if ev, ok := seen[ref.Digest]; ok && ev.ID == ref.ID {
			add(ev)
		}
	}
	n := 0
	for _, c := range rv.Kept {
		ok := len(c.EvidenceIDs) > 0
		var cited []token
		for _, id := range c.EvidenceIDs {
			t, known := tokens[id]
			ok = ok && known
			cited = append(cited, t...)
		}
		if !ok || !grounded(c.Statement, cited) {
			n++
		}
	}
	return n
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func insufficient(r *contracts.ReviewV1) string {
	if r.InsufficientEvidence {
		return " — insufficient evidence: a human must look"
	}
	return ""
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}

// failedReasons maps each failed check to its whole reason (nil when none failed).
func failedReasons(checks []contracts.CheckResult) map[string]string {
	var out map[string]string
	for _, c := range checks {
		if c.Passed {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[c.Name] = c.Reason
	}
	return out
}
