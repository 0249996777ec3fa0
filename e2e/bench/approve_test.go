package bench

import (
	"context"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"agentk/cmd/agentk/stack"
	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/services/bridge/fakeslack"
	"agentk/services/deployer"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"
)

// approveOnEveryBridge approves decs (allowed rollbacks of one service), one
// click on each replica's bridge in turn, and waits for their actions: of
// two deployers the lease holder answers them all and the other stands by;
// every approval gets exactly one stored action and the service is acted on
// once (the others meet its cooldown).
func (p *pipeline) approveOnEveryBridge(t *testing.T, decs []contracts.DecisionV1) {
	t.Helper()
	acts := p.watchActions(t)
	p.approve(t, decs, 0)
	p.requireActedOnce(t, acts, decs)
	p.requireOneDeployerActed(t, len(decs))
}

// actions watches the actions published on the fabric.
type actions chan *nats.Msg

func (p *pipeline) watchActions(tb testing.TB) actions {
	tb.Helper()
	c, err := p.f.Admin(context.Background())
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = c.Close() })
	ch := make(actions, 64)
	_, err = c.NATS().ChanSubscribe(contracts.SubjectAction, ch)
	require.NoError(tb, err)
	require.NoError(tb, c.NATS().Flush())
	return ch
}

// approve clicks Approve on the Slack message of each of decs (allowed
// rollbacks), on the bridges in turn from bridge first.
func (p *pipeline) approve(tb testing.TB, decs []contracts.DecisionV1, first int) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for i, dec := range decs {
		require.Equal(tb, contracts.VerdictAllow, dec.Verdict, "decision %s", dec.DecisionID)
		msg, err := p.slack.WaitMessage(ctx, func(m fakeslack.Message) bool {
			for _, b := range m.Buttons() {
				if b.ActionID == fakeslack.Approve && strings.Contains(b.Value, dec.DecisionID) {
					return true
				}
			}
			return false
		})
		require.NoError(tb, err)
		status, err := p.slack.Click(ctx, p.bridgeURLs[(first+i)%len(p.bridgeURLs)], slackSecret, p.now(), msg, "UBENCH", fakeslack.Approve)
		require.NoError(tb, err)
		require.Equal(tb, 2, status/100)
	}
}

// requireActedOnce waits for an action on each of decs (approved), then
// fails unless each has exactly one stored action and exactly one of them
// acted on the service (the others met its cooldown).
func (p *pipeline) requireActedOnce(tb testing.TB, acts actions, decs []contracts.DecisionV1) {
	tb.Helper()
	want := map[string]bool{}
	for _, dec := range decs {
		want[dec.DecisionID] = true
	}
	deadline := time.NewTimer(2 * time.Minute)
	defer deadline.Stop()
	for acted := map[string]bool{}; len(acted) < len(want); {
		select {
		case <-deadline.C:
			tb.Fatalf("actions for %d of %d approvals", len(acted), len(want))
		case m := <-acts:
			var a contracts.ActionV1
			_ = open(m.Data, &a)
			if want[a.DecisionID] {
				acted[a.DecisionID] = true
			}
		}
	}
	outcome := map[string]string{}
	var reasons []string
	stored := p.stored(tb, contracts.SubjectAction, func(data []byte) string {
		var a contracts.ActionV1
		_ = open(data, &a)
		outcome[a.DecisionID] = a.Outcome
		reasons = append(reasons, a.Outcome+": "+a.Reason)
		return a.DecisionID
	})
	acted := 0
	for id := range want {
		require.Equal(tb, 1, stored[id], "actions stored for %s", id)
		if outcome[id] != contracts.OutcomeRefused {
			acted++
		}
	}
	tb.Logf("actions: %q", reasons)
	require.Equal(tb, 1, acted, "the service is acted on once: %v", outcome)
}

// requireOneDeployerActed fails unless, of several deployers, exactly one
// reports the mode leader and logged every one of the n actions, and every
// other reports standby and logged none.
func (p *pipeline) requireOneDeployerActed(t *testing.T, n int) {
	t.Helper()
	if len(p.deployers) < 2 {
		return
	}
	var modes []string
	leaders := 0
	for i, d := range p.deployers {
		mode := d.mode()
		modes = append(modes, mode)
		switch mode {
		case deployer.ModeLeader:
			leaders++
			require.EqualValues(t, n, d.actions.Load(), "deployer %d holds the lease and answered every approval", i)
		case deployer.ModeStandby:
			require.Zero(t, d.actions.Load(), "deployer %d stands by and answered nothing", i)
		default:
			t.Fatalf("deployer %d reports mode %q", i, mode)
		}
	}
	require.Equal(t, 1, leaders, "one deployer holds the lease: %v", modes)
}

// deployerReplica is one deployer of the replicas: its health (for its
// mode) and how many actions it logged (natsport.Log, one per answer).
type deployerReplica struct {
	running *stack.Running
	actions atomic.Int64
	stopped bool // by takeOver
}

// mode is the deployer's mode at /deployer/readyz.
func (d *deployerReplica) mode() string {
	for _, s := range d.running.Health.Statuses() {
		if s.Service == envelope.RoleDeployer {
			return s.Mode
		}
	}
	return ""
}

func (d *deployerReplica) Enabled(context.Context, slog.Level) bool { return true }
func (d *deployerReplica) WithAttrs([]slog.Attr) slog.Handler       { return d }
func (d *deployerReplica) WithGroup(string) slog.Handler            { return d }

// Handle counts the records that log an action.
func (d *deployerReplica) Handle(_ context.Context, r slog.Record) error {
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "action_id" {
			d.actions.Add(1)
			return false
		}
		return true
	})
	return nil
}
