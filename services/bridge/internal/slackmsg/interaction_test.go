package slackmsg_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"agentk/services/bridge/internal/slackmsg"
)

const click = `{"type":"block_actions","user":{"id":"U0ALICE","username":"alice","team_id":"T1"},"team":{"id":"T1"},
"container":{"type":"message","message_ts":"1700000000.000001","channel_id":"C1"},"channel":{"id":"C1"},
"response_url":"https://hooks.slack.com/actions/T1/1/abc",
"actions":[{"action_id":"agentk_approve","block_id":"agentk_answer","type":"button","value":"dec-1|abcdef","action_ts":"1700000001.000002"}]}`

func TestParseInteraction(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		payload string
		want    slackmsg.Click
		wantErr bool
	}{
		{name: "approve", payload: click, want: slackmsg.Click{UserID: "U0ALICE", TeamID: "T1", ChannelID: "C1",
			MessageTS: "1700000000.000001", ResponseURL: "https://hooks.slack.com/actions/T1/1/abc",
			DecisionID: "dec-1", Digest: "abcdef", Answer: "approve"}},
		{name: "approve anyway (alert resolved)", payload: strings.NewReplacer(`"agentk_approve"`, `"agentk_approve_resolved"`, `dec-1|abcdef`, `dec-1|abcdef|2026-03-14T09:27:53.5Z`).Replace(click),
			want: slackmsg.Click{UserID: "U0ALICE", TeamID: "T1", ChannelID: "C1", MessageTS: "1700000000.000001", ResponseURL: "https://hooks.slack.com/actions/T1/1/abc", DecisionID: "dec-1", Digest: "abcdef", Answer: "approve",
				ResolvedSeen: time.Date(2026, 3, 14, 9, 27, 53, 500_000_000, time.UTC)}},
		{name: "approve anyway without a resolve time", payload: `{"type":"block_actions","user":{"id":"U1"},"actions":[{"action_id":"agentk_approve_resolved","type":"button","value":"dec-1|abcdef"}]}`, wantErr: true},
		{name: "approve anyway, resolve time not a time", payload: `{"type":"block_actions","user":{"id":"U1"},"actions":[{"action_id":"agentk_approve_resolved","type":"button","value":"dec-1|abcdef|soon"}]}`, wantErr: true},
		{name: "plain approve carries no resolve time", payload: strings.Replace(click, `dec-1|abcdef`, `dec-1|abcdef|2026-03-14T09:27:53Z`, 1),
			want: slackmsg.Click{UserID: "U0ALICE", TeamID: "T1", ChannelID: "C1", MessageTS: "1700000000.000001", ResponseURL: "https://hooks.slack.com/actions/T1/1/abc", DecisionID: "dec-1|abcdef", Digest: "2026-03-14T09:27:53Z", Answer: "approve"}},
		{name: "link button", payload: `{"type":"block_actions","user":{"id":"U1"},"team":{"id":"T1"},"actions":[{"action_id":"agentk_link_traces","block_id":"agentk_links","type":"button","url":"http://signoz:8080/traces-explorer"}]}`,
			want: slackmsg.Click{UserID: "U1", TeamID: "T1", Link: true}},
		{name: "not json", payload: "payload", wantErr: true},
		{name: "other type", payload: `{"type":"view_submission","user":{"id":"U1"}}`, wantErr: true},
		{name: "no user", payload: `{"type":"block_actions","actions":[{"action_id":"agentk_deny","value":"a|b"}]}`, wantErr: true},
		{name: "two actions", payload: `{"type":"block_actions","user":{"id":"U1"},"actions":[{"action_id":"agentk_deny","value":"a|b"},{"action_id":"agentk_deny","value":"a|b"}]}`, wantErr: true},
		{name: "foreign action", payload: `{"type":"block_actions","user":{"id":"U1"},"actions":[{"action_id":"other","value":"a|b"}]}`, wantErr: true},
		{name: "no digest", payload: `{"type":"block_actions","user":{"id":"U1"},"actions":[{"action_id":"agentk_deny","value":"a|"}]}`, wantErr: true},
		{name: "no separator", payload: `{"type":"block_actions","user":{"id":"U1"},"actions":[{"action_id":"agentk_deny","value":"ab"}]}`, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := slackmsg.ParseInteraction([]byte(tc.payload))
			if tc.wantErr {
				require.ErrorIs(t, err, slackmsg.ErrPayload)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

// FuzzParseInteraction: no input panics, and every accepted click names a
// user, a decision, a digest and one of the two answers.
func FuzzParseInteraction(f *testing.F) {
	f.Add([]byte(click))
	f.Add([]byte(`{"type":"block_actions","user":{"id":"U1"},"actions":[{"action_id":"agentk_deny","value":"a|b|c"}]}`))
	f.Add([]byte(`{"type":"block_actions","actions":null}`))
	f.Add([]byte(`{"type":"block_actions","user":{"id":"U1"},"actions":[{"action_id":"agentk_approve_resolved","type":"button","value":"a|b|2026-03-14T09:27:53Z"}]}`))
	f.Add([]byte(`{"type":"interactive_message","actions":[{"name":"x"}]}`))
	f.Fuzz(func(t *testing.T, payload []byte) {
		c, err := slackmsg.ParseInteraction(payload)
		if err != nil {
			return
		}
		switch {
		case c.UserID == "":
			t.Fatalf("accepted a click of no one: %+v", c)
		case c.Link:
			if c.DecisionID != "" || c.Answer != "" || c.FreezeService != "" {
				t.Fatalf("a link click carries an action: %+v", c)
			}
			return
		case c.FreezeService != "":
			return
		}
		if c.DecisionID == "" || c.Digest == "" || (c.Answer != "approve" && c.Answer != "deny") {
			t.Fatalf("accepted an incomplete click: %+v", c)
		}
	})
}
