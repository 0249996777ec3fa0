package slackauth_test

import (
	"errors"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/stretchr/testify/require"

	"agentk/services/bridge/internal/slackauth"
)

const secret = "8f742231b10e8888abcd99yyyzzz85a5"

func header(sig string, ts string) http.Header {
	h := http.Header{}
	if sig != "" {
		h.Set(slackauth.HeaderSignature, sig)
	}
	if ts != "" {
		h.Set(slackauth.HeaderTimestamp, ts)
	}
	return h
}

func TestVerify(t *testing.T) {
	t.Parallel()
	now := time.Unix(1531420618, 0)
	body := []byte("payload=%7B%22type%22%3A%22block_actions%22%7D")
	ts := now.Unix()
	good := slackauth.Sign(secret, ts, body)
	sts := strconv.FormatInt(ts, 10)
	tests := []struct {
		name   string
		h      http.Header
		body   []byte
		secret string
		now    time.Time
		want   error
	}{
		{name: "valid", h: header(good, sts), body: body, now: now},
		{name: "valid within window", h: header(good, sts), body: body, now: now.Add(4*time.Minute + 59*time.Second)},
		{name: "clock behind sender", h: header(good, sts), body: body, now: now.Add(-4 * time.Minute)},
		{name: "stale", h: header(good, sts), body: body, now: now.Add(5*time.Minute + time.Second), want: slackauth.ErrStale},
		{name: "from the future", h: header(good, sts), body: body, now: now.Add(-6 * time.Minute), want: slackauth.ErrStale},
		{name: "forged", h: header(slackauth.Sign("another-secret", ts, body), sts), body: body, now: now, want: slackauth.ErrBadSignature},
		{name: "body changed", h: header(good, sts), body: append([]byte("x"), body...), now: now, want: slackauth.ErrBadSignature},
		{name: "timestamp changed", h: header(good, strconv.FormatInt(ts+1, 10)), body: body, now: now, want: slackauth.ErrBadSignature},
		{name: "not v0", h: header("v1="+good[3:], sts), body: body, now: now, want: slackauth.ErrBadSignature},
		{name: "not hex", h: header("v0=zz", sts), body: body, now: now, want: slackauth.ErrBadSignature},
		{name: "padded timestamp", h: header(good, "0"+sts), body: body, now: now, want: slackauth.ErrBadTimestamp},
		{name: "no signature", h: header("", sts), body: body, now: now, want: slackauth.ErrMissingHeaders},
		{name: "no timestamp", h: header(good, ""), body: body, now: now, want: slackauth.ErrMissingHeaders},
		{name: "no secret configured", h: header(good, sts), body: body, now: now, secret: "-", want: slackauth.ErrNoSecret},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sec := secret
			if tc.secret == "-" {
				sec = ""
			}
			err := slackauth.Verify(tc.h, tc.body, sec, tc.now)
			if tc.want == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tc.want)
		})
	}
}

// TestAgreesWithSlackGo checks our HMAC against slack-go's SecretsVerifier on
// requests stamped with the wall clock (the only clock slack-go knows).
func TestAgreesWithSlackGo(t *testing.T) {
	t.Parallel()
	now := time.Now()
	ts := now.Unix()
	body := []byte(`payload={"type":"block_actions"}`)
	tests := []struct {
		name string
		sig  string
	}{
		{name: "signed with the secret", sig: slackauth.Sign(secret, ts, body)},
		{name: "signed with another secret", sig: slackauth.Sign("nope", ts, body)},
		{name: "signed over another body", sig: slackauth.Sign(secret, ts, []byte("x"))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := header(tc.sig, strconv.FormatInt(ts, 10))
			ours := slackauth.Verify(h, body, secret, now)
			sv, err := slack.NewSecretsVerifier(h, secret)
			require.NoError(t, err)
			_, _ = sv.Write(body)
			theirs := sv.Ensure()
			require.Equal(t, theirs == nil, ours == nil, "ours=%v slack-go=%v", ours, theirs)
			if theirs != nil {
				require.True(t, errors.Is(ours, slackauth.ErrBadSignature))
			}
		})
	}
}

func TestReplayCache(t *testing.T) {
	t.Parallel()
	c := slackauth.NewReplayCache()
	now := time.Unix(1700000000, 0)
	h := header("v0=ab", "1700000000")
	id := slackauth.RequestID(h)
	require.False(t, c.Seen(id, now))
	require.True(t, c.Seen(id, now.Add(time.Minute)))
	require.False(t, c.Seen(slackauth.RequestID(header("v0=ac", "1700000000")), now))
	require.False(t, c.Seen(id, now.Add(11*time.Minute)), "pruned once no longer fresh enough to pass Verify")
}
