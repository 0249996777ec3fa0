package bench

import (
	"context"
	"strings"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/services/bridge/fakeslack"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"
)

// approveOnEveryBridge approves decs (allowed rollbacks of one service), one
// click on each replica's bridge in turn, and waits for their actions: two
// deployers share the approvals, yet every approval gets exactly one stored
// action and the service is acted on once (the others meet its cooldown).
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
}
