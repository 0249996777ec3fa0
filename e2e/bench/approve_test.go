package bench

import (
	"context"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/health"
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
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := p.f.Admin(ctx)
	require.NoError(t, err)
	defer func() { _ = c.Close() }()
	actions := make(chan *nats.Msg, 64)
	sub, err := c.NATS().ChanSubscribe(contracts.SubjectAction, actions)
	require.NoError(t, err)
	defer func() { _ = sub.Unsubscribe() }()
	require.NoError(t, c.NATS().Flush())

	want := map[string]bool{}
	for i, dec := range decs {
		require.Equal(t, contracts.VerdictAllow, dec.Verdict, "decision %s", dec.DecisionID)
		msg, err := p.slack.WaitMessage(ctx, func(m fakeslack.Message) bool {
			for _, b := range m.Buttons() {
				if b.ActionID == fakeslack.Approve && strings.Contains(b.Value, dec.DecisionID) {
					return true
				}
			}
			return false
		})
		require.NoError(t, err)
		status, err := p.slack.Click(ctx, p.bridgeURLs[i%len(p.bridgeURLs)], slackSecret, p.now(), msg, "UBENCH", fakeslack.Approve)
		require.NoError(t, err)
		require.Equal(t, 2, status/100)
		want[dec.DecisionID] = true
	}
	for acted := map[string]bool{}; len(acted) < len(want); {
		select {
		case <-ctx.Done():
			t.Fatalf("actions for %d of %d approvals", len(acted), len(want))
		case m := <-actions:
			var a contracts.ActionV1
			_ = open(m.Data, &a)
			if want[a.DecisionID] {
				acted[a.DecisionID] = true
			}
		}
	}
	outcome := map[string]string{}
	var reasons []string
	stored := p.stored(t, contracts.SubjectAction, func(data []byte) string {
		var a contracts.ActionV1
		_ = open(data, &a)
		outcome[a.DecisionID] = a.Outcome
		reasons = append(reasons, a.Outcome+": "+a.Reason)
		return a.DecisionID
	})
	acted := 0
	for id := range want {
		require.Equal(t, 1, stored[id], "actions stored for %s", id)
		if outcome[id] != contracts.OutcomeRefused {
			acted++
		}
	}
	t.Logf("actions: %q", reasons)
	require.Equal(t, 1, acted, "the service is acted on once: %v", outcome)
	p.requireOneDeployerActed(t, len(want))
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
	health  *health.Mux
	actions atomic.Int64
}

// mode is the deployer's mode at /deployer/readyz.
func (d *deployerReplica) mode() string {
	for _, s := range d.health.Statuses() {
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
