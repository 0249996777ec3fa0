package operator

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/services/bridge/fakeslack"

	"github.com/stretchr/testify/require"
)

// TestSlackThreadTellsTheOutcome is issue 21's Slack loop end to end, every
// service in this process with the dry-run deployer: the decision is posted
// with its SigNoz links, the on-call approves in Slack, the message is
// rewritten to say who approved (no longer "awaits approval"), and the
// deployer's dry-run outcome is posted in the message's thread, where the
// header then says what was done.
func TestSlackThreadTellsTheOutcome(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p := newPipeline(ctx, t, liveIncident(t, "bad-release-01"), nil)
	p.start(ctx, envelope.RoleDeployer)
	poll(ctx, t, 20*time.Second, "the deployer's ledger of "+svc, func() bool { return p.ledgerLen(ctx) >= 2 })
	p.start(ctx, except(envelope.RoleDeployer)...)

	p.fire(ctx, "slack-thread")
	d := p.decision(ctx)
	require.Equal(t, contracts.VerdictAllow, d.Verdict, describe(d))
	posted := p.click(ctx, d.DecisionID, fakeslack.Approve)
	require.Contains(t, header(t, posted), "awaits approval")
	require.Contains(t, string(posted.Blocks), "/traces-explorer?compositeQuery=", "a SigNoz traces link")
	require.Contains(t, string(posted.Blocks), "/alerts/overview?ruleId=slack-thread", "the alert rule's link")

	act := next(ctx, p, contracts.SubjectAction, func(a contracts.ActionV1) bool { return a.DecisionID == d.DecisionID })
	require.Equal(t, contracts.OutcomeDryRun, act.Outcome, "%+v", act)

	reply, err := p.slack.WaitMessage(ctx, func(m fakeslack.Message) bool { return m.ThreadTS == posted.TS })
	require.NoError(t, err, "the outcome is told in the decision's thread")
	require.Contains(t, reply.Text, "Dry run")
	require.Contains(t, reply.Text, act.ToImage)
	parent, err := p.slack.WaitMessage(ctx, func(m fakeslack.Message) bool {
		return m.TS == posted.TS && strings.HasPrefix(header(t, m), "Dry run")
	})
	require.NoError(t, err, "the message's header says what was done")
	require.Contains(t, string(parent.Blocks), "by "+approverName+" via slack")
	require.NotContains(t, header(t, parent), "awaits approval")
	require.Len(t, p.slack.Messages(), 2, "the decision and one reply: nothing posted twice")
}

func header(t *testing.T, m fakeslack.Message) string {
	t.Helper()
	var blocks []struct {
		Type string `json:"type"`
		Text struct {
			Text string `json:"text"`
		} `json:"text"`
	}
	require.NoError(t, json.Unmarshal(m.Blocks, &blocks))
	for _, b := range blocks {
		if b.Type == "header" {
			return b.Text.Text
		}
	}
	return ""
}
