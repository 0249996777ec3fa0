package httpport_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"agentk/contracts"
	"agentk/services/bridge/fakeslack"
	"agentk/services/bridge/internal/slackmsg"
	"agentk/services/bridge/internal/testkit"
)

func (r *rig) url() string { return r.srv.URL + "/slack/interactions" }

func (r *rig) send(t *testing.T, req *http.Request) int {
	t.Helper()
	resp, err := r.srv.Client().Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	return resp.StatusCode
}

func (r *rig) click(t *testing.T, m fakeslack.Message, user, action string) (*http.Request, *http.Request) {
	t.Helper()
	payload, err := r.slack.BlockActions(m, user, action, r.clock.Now())
	require.NoError(t, err)
	req, err := fakeslack.InteractionRequest(context.Background(), r.url(), signingSecret, r.clock.Now(), payload)
	require.NoError(t, err)
	again, err := fakeslack.InteractionRequest(context.Background(), r.url(), signingSecret, r.clock.Now(), payload)
	require.NoError(t, err)
	return req, again
}

func waitTold(t *testing.T, s *fakeslack.Server, ts, want string) fakeslack.Response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := s.WaitResponse(ctx, func(r fakeslack.Response) bool {
		return r.MessageTS == ts && (want == "" && r.ReplaceOriginal || want != "" && contains(r.Text, want))
	})
	require.NoError(t, err)
	return resp
}

func requireRefusal(t *testing.T, r *rig, id, reason string) {
	t.Helper()
	rec := r.record(t, id)
	for _, f := range rec.Refusals {
		if contains(f.Reason, reason) {
			return
		}
	}
	t.Fatalf("no refusal %q recorded on %s: %+v", reason, id, rec.Refusals)
}

func requireUnattributed(t *testing.T, r *rig, reason string) {
	t.Helper()
	for _, f := range r.desk.RecentRefusals() {
		if contains(f.Reason, reason) {
			return
		}
	}
	t.Fatalf("no refusal %q recorded: %+v", reason, r.desk.RecentRefusals())
}

func TestSlackMessages(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	allowed := r.receive(t, testkit.Decision("d-allow", r.clock.Now()))
	require.Equal(t, "C0INCIDENTS", allowed.Channel)
	btns := allowed.Buttons()
	require.Len(t, btns, 3)
	require.Equal(t, slackmsg.ActionFreeze, btns[2].ActionID)
	require.Equal(t, "checkout", btns[2].Value)
	rec := r.record(t, "d-allow")
	require.Equal(t, slackmsg.ActionApprove, btns[0].ActionID)
	require.Equal(t, "d-allow|"+rec.Digest, btns[0].Value)
	require.Equal(t, slackmsg.ActionDeny, btns[1].ActionID)
	blocks := string(allowed.Blocks)
	for _, want := range []string{"slo_breach", "allowlist", "cooldown", "confidence", "deployment_related", "sandbox_scope",
		"registry.test/checkout:1.4.2", "https://agentk.test/console/incidents/inc-d-allow", "http://signoz.test:8080/trace/abc123"} {
		require.Contains(t, blocks, want)
	}
	require.Equal(t, allowed.TS, rec.SlackTS)

	denied := r.receive(t, testkit.Denied("d-deny", r.clock.Now()))
	db := denied.Buttons()
	require.Len(t, db, 1, "a gate denial takes no answer, only a freeze")
	require.Equal(t, slackmsg.ActionFreeze, db[0].ActionID)
	require.Contains(t, string(denied.Blocks), "wait for the cooldown or act by hand")

	// A redelivered decision is not posted twice.
	require.NoError(t, r.desk.Receive(context.Background(), testkit.Seal(t, r.keys.Gate, testkit.Decision("d-allow", r.clock.Now()), r.clock.Now())))
	require.Len(t, r.slack.Messages(), 2)
}

func TestSlackApproveAndDeny(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		user   string
		action string
		answer string
		who    string
	}{
		{name: "approve", user: "U0ALICE", action: fakeslack.Approve, answer: contracts.AnswerApprove, who: "alice"},
		{name: "deny", user: "U0BOB", action: fakeslack.Deny, answer: contracts.AnswerDeny, who: "bob"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t)
			dec := testkit.Decision("d1", r.clock.Now())
			m := r.receive(t, dec)
			r.clock.Advance(2 * time.Minute)
			req, _ := r.click(t, m, tc.user, tc.action)
			require.Equal(t, http.StatusOK, r.send(t, req))

			outs := r.pub.all()
			require.Len(t, outs, 1, "one signed message")
			require.Equal(t, "approval.d1", outs[0].msgID)
			var a contracts.ApprovalV1
			_, err := r.keys.Keyring.Open(outs[0].env.Marshal(), contracts.SubjectApproval, r.clock.Now(), &a)
			require.NoError(t, err)
			rec := r.record(t, "d1")
			require.Equal(t, tc.answer, a.Answer)
			require.Equal(t, tc.who, a.Approver)
			require.Equal(t, contracts.ChannelSlack, a.Channel)
			require.Equal(t, rec.Digest, a.DecisionDigest)
			require.Equal(t, "d1", a.DecisionID)
			require.Equal(t, r.clock.Now(), a.AnsweredAt)
			require.Equal(t, rec.ExpiresAt, outs[0].env.Expires())
			require.False(t, outs[0].env.Expires().After(dec.ExpiresAt))
			require.True(t, rec.Answer.Published)

			replaced := waitTold(t, r.slack, m.TS, "")
			require.Contains(t, string(replaced.Blocks), tc.who)
			now := r.slack.Messages()[0]
			require.Empty(t, now.Buttons(), "the buttons are gone once answered")
		})
	}
}

func TestSlackRefusals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// act sends the offending request(s) and returns the final status.
		act        func(t *testing.T, r *rig, m fakeslack.Message) int
		wantStatus int
		// recorded is the reason kept with the decision; unattributed is the
		// reason kept for requests that could name no decision.
		recorded, unattributed string
		told                   string
		approvals              int
	}{
		{
			name: "forged signature",
			act: func(t *testing.T, r *rig, m fakeslack.Message) int {
				payload, err := r.slack.BlockActions(m, "U0ALICE", fakeslack.Approve, r.clock.Now())
				require.NoError(t, err)
				req, err := fakeslack.InteractionRequest(context.Background(), r.url(), "not-the-secret", r.clock.Now(), payload)
				require.NoError(t, err)
				return r.send(t, req)
			},
			wantStatus: http.StatusUnauthorized, unattributed: "signature does not match",
		},
		{
			name: "stale timestamp",
			act: func(t *testing.T, r *rig, m fakeslack.Message) int {
				old := r.clock.Now().Add(-6 * time.Minute)
				payload, err := r.slack.BlockActions(m, "U0ALICE", fakeslack.Approve, old)
				require.NoError(t, err)
				req, err := fakeslack.InteractionRequest(context.Background(), r.url(), signingSecret, old, payload)
				require.NoError(t, err)
				return r.send(t, req)
			},
			wantStatus: http.StatusUnauthorized, unattributed: "outside the 5 minute window",
		},
		{
			name: "replayed request",
			act: func(t *testing.T, r *rig, m fakeslack.Message) int {
				req, again := r.click(t, m, "U0ALICE", fakeslack.Approve)
				require.Equal(t, http.StatusOK, r.send(t, req))
				return r.send(t, again)
			},
			wantStatus: http.StatusConflict, recorded: "replayed request", approvals: 1,
		},
		{
			name: "unknown user",
			act: func(t *testing.T, r *rig, m fakeslack.Message) int {
				req, _ := r.click(t, m, "U0MALLORY", fakeslack.Approve)
				return r.send(t, req)
			},
			wantStatus: http.StatusOK, recorded: "not a configured approver: slack:U0MALLORY", told: "not a configured approver",
		},
		{
			name: "double click",
			act: func(t *testing.T, r *rig, m fakeslack.Message) int {
				first, _ := r.click(t, m, "U0ALICE", fakeslack.Approve)
				require.Equal(t, http.StatusOK, r.send(t, first))
				r.clock.Advance(time.Second)
				second, _ := r.click(t, m, "U0BOB", fakeslack.Deny)
				return r.send(t, second)
			},
			wantStatus: http.StatusOK, recorded: "already answered: approve by alice via slack", told: "already answered", approvals: 1,
		},
		{
			name: "answer after expiry",
			act: func(t *testing.T, r *rig, m fakeslack.Message) int {
				r.clock.Advance(15*time.Minute + time.Second)
				req, _ := r.click(t, m, "U0ALICE", fakeslack.Approve)
				return r.send(t, req)
			},
			wantStatus: http.StatusOK, recorded: "decision expired", told: "decision expired",
		},
		{
			name: "approval of a denied decision",
			act: func(t *testing.T, r *rig, m fakeslack.Message) int {
				m = r.receive(t, testkit.Denied("d-denied", r.clock.Now()))
				rec := r.record(t, "d-denied")
				// The denial has no buttons; forge a correctly signed click on one.
				m.Blocks = json.RawMessage(`[{"type":"actions","block_id":"agentk_answer","elements":[{"type":"button","action_id":"agentk_approve","value":"d-denied|` + rec.Digest + `","text":{"type":"plain_text","text":"Approve"}}]}]`)
				req, _ := r.click(t, m, "U0ALICE", fakeslack.Approve)
				return r.send(t, req)
			},
			// Told on the denial's own message, below.
			wantStatus: http.StatusOK,
		},
		{
			name: "approval after the alert resolved",
			act: func(t *testing.T, r *rig, m fakeslack.Message) int {
				r.inc.Resolve(testkit.Decision("d1", r.clock.Now()).IncidentID, r.clock.Now())
				req, _ := r.click(t, m, "U0ALICE", fakeslack.Approve)
				return r.send(t, req)
			},
			// The buttons were posted while the alert fired: the click is no
			// re-confirmation, and Slack is told the alert resolved.
			wantStatus: http.StatusOK, recorded: "the alert has resolved", told: "the alert has resolved since the decision",
		},
		{
			name: "digest of another decision",
			act: func(t *testing.T, r *rig, m fakeslack.Message) int {
				m.Blocks = json.RawMessage(`[{"type":"actions","block_id":"b","elements":[{"type":"button","action_id":"agentk_approve","value":"d1|deadbeef","text":{"type":"plain_text","text":"Approve"}}]}]`)
				req, _ := r.click(t, m, "U0ALICE", fakeslack.Approve)
				return r.send(t, req)
			},
			wantStatus: http.StatusOK, recorded: "another version of the decision", told: "another version",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t)
			m := r.receive(t, testkit.Decision("d1", r.clock.Now()))
			require.Equal(t, tc.wantStatus, tc.act(t, r, m))
			if tc.recorded != "" {
				requireRefusal(t, r, "d1", tc.recorded)
			}
			if tc.unattributed != "" {
				requireUnattributed(t, r, tc.unattributed)
			}
			if tc.name == "approval of a denied decision" {
				requireRefusal(t, r, "d-denied", "the gate denied this decision")
				waitTold(t, r.slack, r.record(t, "d-denied").SlackTS, "the gate denied this decision")
			}
			if tc.told != "" {
				told := waitTold(t, r.slack, m.TS, tc.told)
				require.Equal(t, "ephemeral", told.ResponseType)
			}
			require.Len(t, r.pub.all(), tc.approvals)
		})
	}
}

func TestSlackUsesServiceClock(t *testing.T) {
	t.Parallel()
	// A replay runs in incident time: requests signed with the replay clock
	// verify although the wall clock is years away.
	r := newRig(t)
	require.Greater(t, time.Since(r.clock.Now()).Abs(), time.Hour*24*30, "the test clock must be far from the wall clock")
	m := r.receive(t, testkit.Decision("d1", r.clock.Now()))
	req, _ := r.click(t, m, "U0ALICE", fakeslack.Approve)
	require.Equal(t, strconv.FormatInt(r.clock.Now().Unix(), 10), req.Header.Get("X-Slack-Request-Timestamp"))
	require.Equal(t, http.StatusOK, r.send(t, req))
	require.Len(t, r.pub.all(), 1)
}

// TestSlackClickCountsOnlyForItsMessage: two decisions are posted, A and B.
// A correctly signed click on message A whose button carries B's value
// (decision id and digest copied from message B) approves nothing: B keeps
// no answer, no approval is published, message A is not rewritten as "approved
// B", and the clicker is told why. A click on B's own message still works.
func TestSlackClickCountsOnlyForItsMessage(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	a := r.receive(t, testkit.Decision("d-a", r.clock.Now()))
	b := r.receive(t, testkit.Decision("d-b", r.clock.Now()))
	forged := a
	forged.Blocks = b.Blocks // message A's ts and channel, B's buttons
	req, _ := r.click(t, forged, "U0ALICE", fakeslack.Approve)
	require.Equal(t, http.StatusOK, r.send(t, req))

	told := waitTold(t, r.slack, a.TS, "not this decision's message")
	require.Equal(t, "ephemeral", told.ResponseType)
	requireRefusal(t, r, "d-b", "not this decision's message")
	require.Nil(t, r.record(t, "d-b").Answer, "B is not answered by a click on A")
	require.Nil(t, r.record(t, "d-a").Answer)
	require.Empty(t, r.pub.all(), "no approval published")
	for _, resp := range r.slack.Responses() {
		require.False(t, resp.ReplaceOriginal, "message A is not rewritten: %s", resp.Text)
	}

	req, _ = r.click(t, b, "U0ALICE", fakeslack.Approve)
	require.Equal(t, http.StatusOK, r.send(t, req))
	require.Len(t, r.pub.all(), 1, "a click on B's own message approves B")
	require.NotNil(t, r.record(t, "d-b").Answer)
}
