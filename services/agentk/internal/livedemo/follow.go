package livedemo

// follow.go: following the pipeline to the action, each message verified as
// its producer's before it is believed, and the approver's click.

import (
	"context"
	"fmt"
	"strings"
	"time"

	"agentk/cmd/agentk/internal/harness"
	"agentk/contracts"
	"agentk/contracts/envelope"

	"github.com/nats-io/nats.go"
)

// follower is follow's state between two events.
type follower struct {
	*demo
	decision *contracts.DecisionV1
	clickErr chan error
	v1Seen   chan time.Time
}

// follow reads the pipeline's messages until the deployer's action on the
// gate's decision arrives.
func (d *demo) follow(ctx context.Context) error {
	f := &follower{demo: d}
	for d.res.Action.ActionID == "" {
		select {
		case <-ctx.Done():
			return fmt.Errorf("demo --live: %w before the action arrived", ctx.Err())
		case err := <-f.clickErr:
			if err != nil {
				return fmt.Errorf("demo --live: %w", err)
			}
			f.clickErr = nil
		case at := <-f.v1Seen:
			d.res.ContainerOnV1At = at
			f.v1Seen = nil
			d.p.step("Docker API: %s's container now runs v1's image %s; the deployer waits its %s stabilisation window", d.res.Released, ShortID(d.res.V1ID), d.o.Stabilise)
			d.p.note("(DEMO: shortened from the 1 m default), then asks the sandbox for service_overview over the live store")
		case m := <-d.msgs:
			if err := f.on(ctx, m); err != nil {
				return err
			}
		}
	}
	return nil
}

// on verifies one message, prints it and acts on it.
func (f *follower) on(ctx context.Context, m *nats.Msg) error {
	kr, p := f.fabric.Keyring(), f.p
	switch m.Subject {
	case contracts.SubjectAlert:
		var a contracts.AlertV1
		if err := openAs(kr, m, f.now, &a); err != nil {
			return err
		}
		p.step("alert %s: service %s, burn rate %g (%s), incident %s", a.AlertName, a.Service, a.BurnRate, a.BurnRateSource, a.IncidentID)
	case contracts.SubjectReport:
		var r contracts.ReportV1
		if err := openAs(kr, m, f.now, &r); err != nil {
			return err
		}
		p.step("investigation by %s: %d claims, %d tool calls, %d evidence records (from the live store), completed=%v",
			r.Investigator, len(r.Claims), r.ToolCalls, len(r.Evidence)+len(r.EvidenceRefs), r.Completed)
	case contracts.SubjectReview:
		var r contracts.ReviewV1
		if err := openAs(kr, m, f.now, &r); err != nil {
			return err
		}
		p.step("review: %d claims kept, %d dropped", len(r.Kept), len(r.Dropped))
		for _, c := range r.Kept {
			p.note("kept    %-20s %.2f  %s", c.Class, c.Confidence, clip(c.Statement, 90))
		}
	case contracts.SubjectDecision:
		var d contracts.DecisionV1
		if err := openAs(kr, m, f.now, &d); err != nil {
			return err
		}
		return f.onDecision(ctx, d)
	case contracts.SubjectApproval:
		return f.onApproval(kr, m)
	case contracts.SubjectAction:
		var a contracts.ActionV1
		if err := openAs(kr, m, f.now, &a); err != nil {
			return err
		}
		f.res.Actions[a.DecisionID] = a
		if f.decision != nil && a.DecisionID == f.decision.DecisionID {
			f.res.Action, f.res.ActionAt = a, time.Now()
		}
	}
	return nil
}

// onDecision prints the gate's decision to act on; an allow is answered by
// the approver while the engine is watched, as an operator would, for the
// container on v1. With TwoServices the gate's decision about the alerted
// shop-api comes first and must deny (shop-api released nothing); the one
// acted on is the derived decision about payment.
func (f *follower) onDecision(ctx context.Context, d contracts.DecisionV1) error {
	if f.decision != nil {
		return nil
	}
	p := f.p
	if f.o.TwoServices && d.Origin == nil {
		if d.Service != Service || f.res.AlertedDecision.DecisionID != "" {
			return nil
		}
		f.res.AlertedDecision = d
		p.step("gate, on the alerted %s: %s (decision %s)", d.Service, strings.ToUpper(d.Verdict), d.DecisionID)
		printChecks(p, d)
		if d.Verdict == contracts.VerdictAllow {
			return fmt.Errorf("demo --live: the gate allowed %s's own rollback; %s released nothing, so it should have denied it", Service, Service)
		}
		p.note("%s released nothing: its own rollback is denied; the gate now asks the same checks of the service where its failures begin", Service)
		return nil
	}
	if f.o.TwoServices && (d.Service != Origin || d.Origin.AlertedService != Service) {
		return fmt.Errorf("demo --live: the gate's derived decision %s is about %s (alerted %s), want %s (alerted %s)", d.DecisionID, d.Service, d.Origin.AlertedService, Origin, Service)
	}
	f.decision, f.res.Decision, f.res.DecisionAt = &d, d, time.Now()
	if d.Origin != nil {
		p.step("gate, DERIVED decision about %s (the origin: %.0f%% of %s's failures begin in it): %s (decision %s)",
			d.Service, 100*d.Origin.Share, d.Origin.AlertedService, strings.ToUpper(d.Verdict), d.DecisionID)
		p.note("%s", clip(d.Origin.Reason, 160))
	} else {
		p.step("gate: %s (decision %s)", strings.ToUpper(d.Verdict), d.DecisionID)
	}
	printChecks(p, d)
	if d.Verdict != contracts.VerdictAllow {
		return fmt.Errorf("demo --live: the gate denied the rollback of %s (%s): %s", d.Service, strings.Join(d.FailedChecks, ", "), d.NextStep)
	}
	clicked, seen, v1, project, rel := make(chan error, 1), make(chan time.Time, 1), f.res.V1ID, f.res.Project, f.res.Released
	f.clickErr, f.v1Seen = clicked, seen
	approver := harness.Approver{Slack: f.slack, URL: "http://" + f.bridgeAddr + "/slack/interactions", Secret: f.secret,
		ApproverID: liveApproverID, Now: f.now, Ask: f.o.Interactive, Clicks: func(human bool, action string) {
			who := "the AUTO-APPROVER (demo; no human involved)"
			if human {
				who = "you"
			}
			p.step("Slack message posted with Approve/Deny buttons (local fake Slack); %s clicks %s", who, harness.ButtonName(action))
		}}
	go func() { clicked <- approver.Answer(ctx, d) }()
	go func() {
		if waitFor(ctx, 3*time.Minute, "", func() bool { return runsImage(ctx, f.dc, project, rel, v1) }) == nil {
			seen <- time.Now()
		}
	}()
	return nil
}

func printChecks(p *progress, d contracts.DecisionV1) {
	for _, c := range d.Checks {
		p.note("%s %-18s %s", harness.Mark(c.Passed), c.Name, clip(c.Reason, 100))
	}
}

func (f *follower) onApproval(kr *envelope.Keyring, m *nats.Msg) error {
	var a contracts.ApprovalV1
	if err := openAs(kr, m, f.now, &a); err != nil {
		return err
	}
	f.p.step("approval: %s by %s via %s (signed by the bridge, bound to digest %s…)", a.Answer, a.Approver, a.Channel, a.DecisionDigest[:12])
	if a.Answer != contracts.AnswerApprove {
		return fmt.Errorf("demo --live: the rollback was denied by %s", a.Approver)
	}
	return nil
}

// openAs verifies a message as its one producer's before it is believed.
func openAs(kr *envelope.Keyring, m *nats.Msg, now func() time.Time, v any) error {
	if _, err := kr.Open(m.Data, m.Subject, now(), v); err != nil {
		return fmt.Errorf("demo --live: observed %s failed verification: %w", m.Subject, err)
	}
	return nil
}
