package faults

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/crashpoint"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"
)

// crashTimeout bounds one incident with a fault: a SIGKILLed consumer's
// message is redelivered after the bus AckWait (30 s).
const crashTimeout = 3 * time.Minute

// follow drives the incident to its end as the on-call human would: it calls
// onTrigger once when the first message on trigger crosses the bus, approves
// an allowed decision in Slack, and returns once an action (or a denial) is
// stored and every consumer is drained.
func (w *world) follow(ctx context.Context, trigger string, onTrigger func()) stored {
	t := w.t
	t.Helper()
	msgs := make(chan *nats.Msg, 4096)
	sub, err := w.admin.NATS().ChanSubscribe("agentk.>", msgs)
	require.NoError(t, err)
	defer func() { _ = sub.Unsubscribe() }()
	require.NoError(t, w.admin.NATS().Flush())
	if trigger == "" {
		onTrigger()
	}
	w.postAlert(ctx)

	triggered := trigger == ""
	approved := make(chan error, 1)
	asked := false
	// decided approves an allowed decision once and reports whether the
	// incident ended there (a denial).
	decided := func(d contracts.DecisionV1) bool {
		if d.Verdict != contracts.VerdictAllow {
			return true
		}
		if !asked {
			asked = true
			go func() { approved <- w.approveInSlack(ctx, d.DecisionID) }()
		}
		return false
	}
	// The core subscription misses what crosses the bus while the test's own
	// connection reconnects after a NATS restart (the services may reconnect
	// first, and approve and act in that gap); the streams keep it, so the
	// stored messages are read too, once a second.
	poll := time.NewTicker(time.Second)
	defer poll.Stop()
	seen := map[string]int{}
	for done := false; !done; {
		select {
		case <-ctx.Done():
			t.Fatalf("incident did not finish: messages seen %v", seen)
		case err := <-approved:
			require.NoError(t, err, "approval in Slack")
		case <-poll.C:
			if s, err := w.readStored(ctx); err == nil && triggered {
				for _, d := range s.decisions {
					done = decided(d) || done
				}
				done = done || len(s.actions) > 0
			}
		case m := <-msgs:
			seen[m.Subject]++
			if !triggered && m.Subject == trigger {
				triggered = true
				onTrigger()
			}
			switch m.Subject {
			case contracts.SubjectDecision:
				var d contracts.DecisionV1
				_, err := w.kr.Open(m.Data, m.Subject, time.Now(), &d)
				require.NoError(t, err)
				done = decided(d)
			case contracts.SubjectAction:
				done = true
			}
		}
	}
	w.quiet(ctx)
	return w.read(ctx)
}

// requireOneOutcome is the invariant every fault must keep: one incident, one
// decision, one approval and exactly one action that moved the service.
func requireOneOutcome(t *testing.T, s stored) string {
	t.Helper()
	incidents := map[string]bool{}
	for _, a := range s.alerts {
		incidents[a.IncidentID] = true
	}
	require.Len(t, incidents, 1, "incidents opened")
	require.Len(t, s.decisions, 1, "decisions stored: %v", s.decisionIDs())
	require.Equal(t, contracts.VerdictAllow, s.decisions[0].Verdict, "failed checks %v", s.decisions[0].FailedChecks)
	require.Len(t, s.approvals, 1, "approvals stored")
	require.Equal(t, 1, s.acted(), "actions that moved the service: %+v", s.actions)
	for _, a := range s.actions {
		if a.Outcome != contracts.OutcomeDryRun && a.Outcome != contracts.OutcomeRolledBack {
			require.Equal(t, contracts.OutcomeRefused, a.Outcome, "a second action may only be a refusal: %+v", a)
		}
	}
	return fmt.Sprintf("%d alert(s), 1 decision (allow), 1 approval, %d action(s), 1 rollback (dry run)", len(s.alerts), len(s.actions))
}

func TestServiceKilledMidIncident(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		role    string
		trigger string
		how     string
	}{
		{name: "ingester down when the alert fires", role: envelope.RoleIngester, trigger: "",
			how: "SIGKILL the ingester before the alert is posted; the sender retries until it is restarted"},
		{name: "sandbox killed on the first tool call", role: envelope.RoleSandbox, trigger: contracts.SubjectToolCall,
			how: "SIGKILL the sandbox when the first tool call crosses the bus, restart it"},
		{name: "investigator killed mid-investigation", role: envelope.RoleInvestigator, trigger: contracts.SubjectToolCall,
			how: "SIGKILL the investigator after its first tool call, restart it"},
		{name: "reviewer killed when the report arrives", role: envelope.RoleReviewer, trigger: contracts.SubjectReport,
			how: "SIGKILL the reviewer when the report is published, restart it"},
		{name: "gate killed when the review arrives", role: envelope.RoleGate, trigger: contracts.SubjectReview,
			how: "SIGKILL the gate when the review is published, restart it"},
		{name: "bridge killed when the decision arrives", role: envelope.RoleBridge, trigger: contracts.SubjectDecision,
			how: "SIGKILL the bridge when the decision is published, restart it; the approver clicks again until it answers"},
		{name: "deployer killed when the approval arrives", role: envelope.RoleDeployer, trigger: contracts.SubjectApproval,
			how: "SIGKILL the deployer when the approval is published, restart it"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), crashTimeout)
			defer cancel()
			w := newWorld(t)
			w.start(ctx)
			restarted := false
			s := w.follow(ctx, tc.trigger, func() {
				w.procs[tc.role].kill(t)
				w.startService(tc.role)
				restarted = true
			})
			require.True(t, restarted, "the fault was never injected")
			got := requireOneOutcome(t, s)
			record(t, row{Area: "crash", Fault: tc.name, How: tc.how, Outcome: got})
		})
	}
}

// TestDeployerKilledInsideItsHandler kills the deployer at a crash point
// inside its handler, between receiving the approval and acking it: the
// point writes a marker right before it blocks, the test waits for that
// marker before SIGKILL, so the kill is known to have landed there. The
// restarted deployer gets the approval again and answers it once.
func TestDeployerKilledInsideItsHandler(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, point, how string
	}{
		{name: "deployer killed after acting, before publishing and acking", point: crashpoint.DeployerHandled,
			how: "crash point deployer.handled: the dry run is journalled, the action not published, the approval not acked; SIGKILL there, restart"},
		{name: "deployer killed on receipt, before anything", point: crashpoint.DeployerReceived,
			how: "crash point deployer.received: the approval is in the handler, nothing done; SIGKILL there, restart"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), crashTimeout)
			defer cancel()
			w := newWorld(t)
			marker := filepath.Join(w.dir, "crashpoint.marker")
			w.once = map[string][]string{envelope.RoleDeployer: {crashpoint.EnvPoint + "=" + tc.point, crashpoint.EnvMarker + "=" + marker}}
			w.start(ctx)
			killed := false
			s := w.follow(ctx, contracts.SubjectApproval, func() {
				poll(ctx, t, "the deployer at crash point "+tc.point, func() (bool, error) {
					b, err := os.ReadFile(marker)
					if errors.Is(err, os.ErrNotExist) {
						return false, nil
					}
					return strings.HasPrefix(string(b), tc.point+" "), err
				})
				// Stopped at the point: nothing was published for the
				// approval yet.
				require.Zero(t, len(w.read(ctx).actions), "an action was published before the crash point")
				w.procs[envelope.RoleDeployer].kill(t)
				killed = true
				w.startService(envelope.RoleDeployer)
			})
			require.True(t, killed, "the crash point was never reached")
			got := requireOneOutcome(t, s)
			require.Len(t, s.actions, 1, "the redelivered approval is answered once: %+v", s.actions)
			record(t, row{Area: "crash", Fault: tc.name, How: tc.how, Outcome: "kill landed at " + tc.point + " (marker); " + got})
		})
	}
}

func TestNATSServerRestartedMidIncident(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		trigger string
	}{
		{name: "after the alert is stored", trigger: contracts.SubjectAlert},
		{name: "after the decision is stored", trigger: contracts.SubjectDecision},
		{name: "after the approval is stored", trigger: contracts.SubjectApproval},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), crashTimeout)
			defer cancel()
			w := newWorld(t)
			w.start(ctx)
			s := w.follow(ctx, tc.trigger, func() {
				w.nats.kill(t)
				w.startNATS(ctx)
			})
			got := requireOneOutcome(t, s)
			record(t, row{Area: "nats", Fault: "nats-server SIGKILLed and restarted " + tc.name,
				How:     "SIGKILL the nats-server process (file store) once " + strings.TrimPrefix(tc.name, "after ") + ", start it again on the same store and port",
				Outcome: "nothing lost: " + got})
		})
	}
}
