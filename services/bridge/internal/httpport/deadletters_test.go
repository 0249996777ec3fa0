package httpport_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"agentk/platform/bus"
	"agentk/services/bridge/internal/approval"
	"agentk/services/bridge/internal/httpport"
	"agentk/services/bridge/internal/testkit"
)

type fakeDeadLetters []bus.DeadLetter

func (f fakeDeadLetters) DeadLetters(context.Context) ([]bus.DeadLetter, error) {
	return append([]bus.DeadLetter(nil), f...), nil
}

// TestConsoleListsDeadLetters: the console's dead-letter page lists what a
// service set aside, newest first, escaping the hostile text an error quotes,
// and only for a signed-in approver.
func TestConsoleListsDeadLetters(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	approvers, err := approval.NewApprovers(map[string]string{"U0ALICE": "alice"}, map[string]string{"alice": aliceToken})
	require.NoError(t, err)
	at := testkit.Epoch
	srv := httpport.New(httpport.Options{
		Desk: r.desk, Approvers: approvers, Now: r.clock.Now, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		DeadLetters: fakeDeadLetters{
			{Seq: 1, Subject: "agentk.review.v1", At: at, Reason: "content", Handler: "gate", Error: `KV key "<script>alert(1)</script>" refused`, IncidentID: "inc-shop-api-0123456789abcdef"},
			{Seq: 2, Subject: "agentk.alert.v1", At: at.Add(time.Minute), Reason: "permanent", Handler: "investigator", Error: "bad envelope"},
		},
	})
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()

	get := func(token string) (int, string) {
		req, err := http.NewRequest(http.MethodGet, hs.URL+"/console/deadletters", nil)
		require.NoError(t, err)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := client.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(b)
	}
	code, _ := get("")
	require.Equal(t, http.StatusSeeOther, code, "not signed in: to the login page")
	code, body := get(aliceToken)
	require.Equal(t, 200, code, body)
	require.Contains(t, body, `id="deadletters"`)
	require.Contains(t, body, "agentk.review.v1")
	require.Contains(t, body, `href="/console/incidents/inc-shop-api-0123456789abcdef"`)
	require.NotContains(t, body, "<script>alert(1)</script>")
	require.Contains(t, body, "&lt;script&gt;")
	require.Less(t, indexOf(body, "agentk.alert.v1"), indexOf(body, "agentk.review.v1"), "newest first")
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}
