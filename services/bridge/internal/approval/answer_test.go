package approval_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/services/bridge/internal/approval"
	"agentk/services/bridge/internal/testkit"
)

func record(t *testing.T, dec contracts.DecisionV1, ttl time.Duration) approval.Record {
	t.Helper()
	return recordWith(t, testkit.NewKeys(t), dec, ttl)
}

func recordWith(t *testing.T, k testkit.Keys, dec contracts.DecisionV1, ttl time.Duration) approval.Record {
	t.Helper()
	env, err := k.Gate.SealJSON(contracts.SubjectDecision, dec, testkit.Epoch, ttl)
	require.NoError(t, err)
	rec, err := approval.NewRecord(env, dec, testkit.Epoch)
	require.NoError(t, err)
	return rec
}

func TestNewRecord(t *testing.T) {
	t.Parallel()
	now := testkit.Epoch
	tests := []struct {
		name    string
		mutate  func(*contracts.DecisionV1)
		ttl     time.Duration
		wantExp time.Time
		wantErr error
	}{
		{name: "envelope expires first", ttl: 5 * time.Minute, wantExp: now.Add(5 * time.Minute)},
		{name: "decision expires first", ttl: time.Hour, wantExp: now.Add(15 * time.Minute)},
		{name: "only envelope expiry", mutate: func(d *contracts.DecisionV1) { d.ExpiresAt = time.Time{} }, ttl: time.Minute, wantExp: now.Add(time.Minute)},
		{name: "no expiry at all fails closed", mutate: func(d *contracts.DecisionV1) { d.ExpiresAt = time.Time{} }, wantErr: approval.ErrInvalidDecision},
		{name: "no id", mutate: func(d *contracts.DecisionV1) { d.DecisionID = "" }, ttl: time.Minute, wantErr: approval.ErrInvalidDecision},
	}
	k := testkit.NewKeys(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dec := testkit.Decision("d1", now)
			if tc.mutate != nil {
				tc.mutate(&dec)
			}
			env, err := k.Gate.SealJSON(contracts.SubjectDecision, dec, now, tc.ttl)
			require.NoError(t, err)
			rec, err := approval.NewRecord(env, dec, now)
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.wantExp, rec.ExpiresAt)
			require.Equal(t, env.Digest(), rec.Digest)
			got, err := envelope.Parse(rec.Envelope)
			require.NoError(t, err)
			require.Equal(t, env.Payload, got.Payload, "the envelope is kept byte for byte")
		})
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	now := testkit.Epoch.Add(time.Minute)
	open := record(t, testkit.Decision("d1", testkit.Epoch), 15*time.Minute)
	answered := open
	answered.Answer = &approval.Answer{Answer: "approve", Approver: "alice", Channel: "slack", RequestID: "req-1", AnsweredAt: now}
	denied := record(t, testkit.Denied("d2", testkit.Epoch), 15*time.Minute)
	ok := approval.Request{DecisionID: "d1", Answer: "approve", Approver: "alice", Channel: "web", Digest: open.Digest}
	posted := open
	posted.SlackChannel, posted.SlackTS = "C1", "1700000000.000001"
	slackOn := func(ch, ts string) func(approval.Request) approval.Request {
		return func(r approval.Request) approval.Request {
			r.Channel, r.SlackChannel, r.SlackTS = "slack", ch, ts
			return r
		}
	}

	tests := []struct {
		name string
		rec  approval.Record
		req  func(approval.Request) approval.Request
		now  time.Time
		want error
	}{
		{name: "approve", rec: open, now: now},
		{name: "deny", rec: open, req: func(r approval.Request) approval.Request { r.Answer = "deny"; return r }, now: now},
		{name: "no digest from console", rec: open, req: func(r approval.Request) approval.Request { r.Digest = ""; return r }, now: now},
		{name: "bad answer", rec: open, req: func(r approval.Request) approval.Request { r.Answer = "yes"; return r }, now: now, want: approval.ErrBadAnswer},
		{name: "bad channel", rec: open, req: func(r approval.Request) approval.Request { r.Channel = "email"; return r }, now: now, want: approval.ErrBadChannel},
		{name: "unknown approver", rec: open, req: func(r approval.Request) approval.Request { r.Approver = ""; return r }, now: now, want: approval.ErrUnknownApprover},
		{name: "second answer", rec: answered, now: now, want: approval.ErrAlreadyAnswered},
		{name: "replayed request", rec: answered, req: func(r approval.Request) approval.Request { r.RequestID = "req-1"; return r }, now: now, want: approval.ErrReplay},
		{name: "gate denied", rec: denied, req: func(r approval.Request) approval.Request { r.DecisionID, r.Digest = "d2", ""; return r }, now: now, want: approval.ErrGateDenied},
		{name: "deny of a gate denial", rec: denied, req: func(r approval.Request) approval.Request { r.Answer, r.Digest = "deny", ""; return r }, now: now, want: approval.ErrGateDenied},
		{name: "at expiry", rec: open, now: open.ExpiresAt, want: approval.ErrExpired},
		{name: "after expiry", rec: open, now: open.ExpiresAt.Add(time.Second), want: approval.ErrExpired},
		{name: "slack click on the decision's message", rec: posted, req: slackOn("C1", "1700000000.000001"), now: now},
		{name: "slack click on another message", rec: posted, req: slackOn("C1", "1700000000.000002"), now: now, want: approval.ErrWrongMessage},
		{name: "slack click in another channel", rec: posted, req: slackOn("C2", "1700000000.000001"), now: now, want: approval.ErrWrongMessage},
		{name: "slack click naming no message", rec: posted, req: slackOn("", ""), now: now, want: approval.ErrWrongMessage},
		{name: "slack click before the message is recorded", rec: open, req: slackOn("C1", "1700000000.000001"), now: now, want: approval.ErrMessagePending},
		{name: "web answer of a posted decision", rec: posted, now: now},
		{name: "digest of another decision", rec: open, req: func(r approval.Request) approval.Request { r.Digest = "00"; return r }, now: now, want: approval.ErrDigestMismatch},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req := ok
			if tc.req != nil {
				req = tc.req(req)
			}
			err := approval.Check(tc.rec, req, tc.now)
			if tc.want == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tc.want)
		})
	}
}

func TestApprovalExpiresWithDecision(t *testing.T) {
	t.Parallel()
	k := testkit.NewKeys(t)
	rec := recordWith(t, k, testkit.Decision("d1", testkit.Epoch), 10*time.Minute)
	now := testkit.Epoch.Add(3 * time.Minute)
	req := approval.Request{DecisionID: "d1", Answer: "approve", Approver: "alice", Channel: "cli", ApprovalID: "apv_1"}
	payload, ttl := approval.Approval(rec, req, time.Time{}, now)
	env, err := k.Bridge.SealJSON(contracts.SubjectApproval, payload, now, ttl)
	require.NoError(t, err)
	require.Equal(t, rec.ExpiresAt, env.Expires())
	require.Equal(t, rec.ExpiresAt, payload.ExpiresAt)
	require.Equal(t, rec.Digest, payload.DecisionDigest)
	require.JSONEq(t, string(rec.Envelope), string(payload.Decision))
	require.Equal(t, "alice", payload.Approver)
	require.Equal(t, "cli", payload.Channel)

	var got contracts.ApprovalV1
	_, err = k.Keyring.Open(env.Marshal(), contracts.SubjectApproval, now, &got)
	require.NoError(t, err)
	var dec contracts.DecisionV1
	inner, err := k.Keyring.Open(got.Decision, contracts.SubjectDecision, now, &dec)
	require.NoError(t, err, "the embedded decision verifies on its own")
	require.Equal(t, got.DecisionDigest, inner.Digest())
}

func TestRefusalsAreBounded(t *testing.T) {
	t.Parallel()
	var rec approval.Record
	for i := range approval.MaxRefusals + 5 {
		rec = rec.WithRefusal(approval.Refusal{Reason: string(rune('a' + i%26))})
	}
	require.Len(t, rec.Refusals, approval.MaxRefusals)
	require.Equal(t, string(rune('a'+(approval.MaxRefusals+4)%26)), rec.Refusals[approval.MaxRefusals-1].Reason)
}

func TestApprovers(t *testing.T) {
	t.Parallel()
	a, err := approval.NewApprovers(map[string]string{"U1": "alice", "U2": "bob"}, map[string]string{"alice": "tok-alice-0123456789", "carol": "tok-carol-0123456789"})
	require.NoError(t, err)
	require.Equal(t, []string{"alice", "bob", "carol"}, a.Names())
	tests := []struct {
		name string
		got  func() (string, bool)
		want string
	}{
		{name: "slack id", got: func() (string, bool) { return a.BySlackID("U2") }, want: "bob"},
		{name: "unknown slack id", got: func() (string, bool) { return a.BySlackID("U9") }},
		{name: "empty slack id", got: func() (string, bool) { return a.BySlackID("") }},
		{name: "token", got: func() (string, bool) { return a.ByToken("tok-carol-0123456789") }, want: "carol"},
		{name: "wrong token", got: func() (string, bool) { return a.ByToken("tok-carol-0123456780") }},
		{name: "empty token", got: func() (string, bool) { return a.ByToken("") }},
		{name: "name and token", got: func() (string, bool) { return a.ByNameAndToken("alice", "tok-alice-0123456789") }, want: "alice"},
		{name: "someone else's token", got: func() (string, bool) { return a.ByNameAndToken("bob", "tok-alice-0123456789") }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, ok := tc.got()
			require.Equal(t, tc.want, got)
			require.Equal(t, tc.want != "", ok)
		})
	}
	_, err = approval.NewApprovers(nil, map[string]string{"a": "same-token-xxxxxxxx", "b": "same-token-xxxxxxxx"})
	require.ErrorIs(t, err, approval.ErrConfig)
}

func TestCheckResolved(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 30, 10, 30, 0, 0, time.UTC)
	rec := approval.Record{DecisionID: "d1", Decision: contracts.DecisionV1{IncidentID: "inc-1"}}
	cases := []struct {
		name      string
		answer    string
		resolved  time.Time
		seen      time.Time
		err       error
		confirmed time.Time
	}{
		{name: "firing: nothing to confirm", answer: contracts.AnswerApprove},
		{name: "resolved, not seen", answer: contracts.AnswerApprove, resolved: at, err: approval.ErrResolved},
		{name: "resolved, an earlier state seen", answer: contracts.AnswerApprove, resolved: at, seen: at.Add(-time.Second), err: approval.ErrResolved},
		{name: "resolved and seen", answer: contracts.AnswerApprove, resolved: at, seen: at, confirmed: at},
		{name: "seen to the second, as shown", answer: contracts.AnswerApprove, resolved: at.Add(400 * time.Millisecond), seen: at, confirmed: at.Add(400 * time.Millisecond)},
		{name: "a denial after the resolve is fine", answer: contracts.AnswerDeny, resolved: at},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := approval.CheckResolved(rec, approval.Request{Answer: tc.answer, ResolvedSeen: tc.seen}, tc.resolved)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				require.Contains(t, err.Error(), "inc-1")
				return
			}
			require.NoError(t, err)
			require.True(t, tc.confirmed.Equal(got), "confirmed %s, want %s", got, tc.confirmed)
		})
	}
}
