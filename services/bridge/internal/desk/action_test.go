package desk_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"agentk/contracts"
	"agentk/services/bridge/fakeslack"
	"agentk/services/bridge/internal/approval"
	"agentk/services/bridge/internal/desk"
	"agentk/services/bridge/internal/slackport"
	"agentk/services/bridge/internal/store"
	"agentk/services/bridge/internal/testkit"
)

const token = "xoxb-desk-test"

type slackDesk struct {
	desk  *desk.Desk
	slack *fakeslack.Server
	keys  testkit.Keys
	clock *testkit.Clock
	dec   contracts.DecisionV1
	errs  []error
}

// newSlackDesk records decision d1, posts it to the fake Slack and has alice
// approve it from the console.
func newSlackDesk(t *testing.T) *slackDesk {
	t.Helper()
	s := &slackDesk{slack: fakeslack.New(token), keys: testkit.NewKeys(t), clock: testkit.NewClock(testkit.Epoch)}
	t.Cleanup(s.slack.Close)
	sc := slackport.New(slackport.Options{APIURL: s.slack.APIURL(), BotToken: token, Channel: "C0INC",
		ResponseURLPrefix: s.slack.ResponseURLPrefix(), Report: func(_ string, err error) { s.errs = append(s.errs, err) }})
	s.desk = desk.New(desk.Deps{Store: store.NewMemory(), Signer: s.keys.Bridge, Keyring: s.keys.Keyring,
		Publisher: &publisher{}, Notifier: sc, Now: s.clock.Now, Logger: slog.New(slog.DiscardHandler)})
	s.dec = testkit.Decision("d1", s.clock.Now())
	require.NoError(t, s.desk.Receive(t.Context(), testkit.Seal(t, s.keys.Gate, s.dec, s.clock.Now())))
	_, err := s.desk.Answer(t.Context(), approval.Request{DecisionID: "d1", Answer: contracts.AnswerApprove,
		Approver: "alice", Channel: contracts.ChannelWeb, Identity: "web:alice"})
	require.NoError(t, err)
	return s
}

func (s *slackDesk) act(t *testing.T, id, outcome string, recovered *bool) []byte {
	t.Helper()
	return testkit.SealAction(t, s.keys.Deployer, testkit.Action(id, s.dec, outcome, recovered, s.clock.Now()), s.clock.Now())
}

func headerOf(t *testing.T, m fakeslack.Message) string {
	t.Helper()
	var blocks []struct {
		Type string `json:"type"`
		Text struct {
			Text string `json:"text"`
		} `json:"text"`
	}
	require.NoError(t, json.Unmarshal(m.Blocks, &blocks))
	require.Equal(t, "header", blocks[0].Type)
	return blocks[0].Text.Text
}

// TestOutcomeIsToldInTheThread: the deployer's outcome is posted once in the
// decision's thread, and the message's header says what was done.
func TestOutcomeIsToldInTheThread(t *testing.T) {
	t.Parallel()
	s := newSlackDesk(t)
	yes := true
	data := s.act(t, "act-1", contracts.OutcomeRolledBack, &yes)
	require.NoError(t, s.desk.ReceiveAction(t.Context(), data))
	require.NoError(t, s.desk.ReceiveAction(t.Context(), data), "a redelivery")

	msgs := s.slack.Messages()
	require.Len(t, msgs, 2, "the decision and one thread reply")
	parent, reply := msgs[0], msgs[1]
	require.Equal(t, parent.TS, reply.ThreadTS)
	require.Contains(t, reply.Text, "Rolled back and recovered")
	require.Contains(t, string(reply.Blocks), "2 min 5 s", "the action took 125 s")
	require.Equal(t, "Rolled back and recovered: checkout", headerOf(t, parent))
	require.Equal(t, 2, parent.Updates, "answered, then the outcome")

	rec, err := s.desk.Get(t.Context(), "d1")
	require.NoError(t, err)
	require.Equal(t, "act-1", rec.Action.ActionID)
	require.True(t, rec.IsTold("act-1"))
	require.Equal(t, "act-1", rec.Shown)
}

// TestARefusalDoesNotHideWhatWasDone: a later refusal (a repeated approval)
// is told in the thread, but the message keeps the rollback's outcome.
func TestARefusalDoesNotHideWhatWasDone(t *testing.T) {
	t.Parallel()
	s := newSlackDesk(t)
	require.NoError(t, s.desk.ReceiveAction(t.Context(), s.act(t, "act-1", contracts.OutcomeDryRun, nil)))
	require.NoError(t, s.desk.ReceiveAction(t.Context(), s.act(t, "act-2", contracts.OutcomeRefused, nil)))
	msgs := s.slack.Messages()
	require.Len(t, msgs, 3)
	require.Contains(t, msgs[2].Text, "refused")
	require.True(t, strings.HasPrefix(headerOf(t, msgs[0]), "Dry run"))
	rec, err := s.desk.Get(t.Context(), "d1")
	require.NoError(t, err)
	require.Equal(t, "act-1", rec.Action.ActionID)
}

func TestActionRejections(t *testing.T) {
	t.Parallel()
	s := newSlackDesk(t)
	forged := testkit.SealAction(t, s.keys.Gate, testkit.Action("act-x", s.dec, contracts.OutcomeRolledBack, nil, s.clock.Now()), s.clock.Now())
	require.ErrorIs(t, s.desk.ReceiveAction(t.Context(), forged), desk.ErrRejected, "signed by the gate, not the deployer")
	require.ErrorIs(t, s.desk.ReceiveAction(t.Context(), []byte("{")), desk.ErrRejected)
	other := s.dec
	other.DecisionID = "never-seen"
	unknown := testkit.SealAction(t, s.keys.Deployer, testkit.Action("act-y", other, contracts.OutcomeDryRun, nil, s.clock.Now()), s.clock.Now())
	require.NoError(t, s.desk.ReceiveAction(t.Context(), unknown), "dropped, not retried for ever")
	require.Len(t, s.slack.Messages(), 1)
}

// TestSlackRefusingPostsIsRetriedAndReported: a Slack that refuses the
// thread reply makes the handler retry, and every refusal is reported.
func TestSlackRefusingPostsIsRetriedAndReported(t *testing.T) {
	t.Parallel()
	s := newSlackDesk(t)
	s.slack.Refuse("channel_not_found")
	data := s.act(t, "act-1", contracts.OutcomeDryRun, nil)
	err := s.desk.ReceiveAction(t.Context(), data)
	require.Error(t, err)
	require.False(t, errors.Is(err, desk.ErrRejected), "transient: redelivered")
	require.ErrorIs(t, err, slackport.ErrSlack)
	require.ErrorContains(t, s.errs[len(s.errs)-1], "channel_not_found")
	s.slack.Refuse("")
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	require.NoError(t, s.desk.ReceiveAction(ctx, data))
	require.NoError(t, s.errs[len(s.errs)-1], "the last call succeeded: reported healthy again")
	require.Len(t, s.slack.Messages(), 2)
}
