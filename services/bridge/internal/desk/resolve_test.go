package desk_test

import (
	"context"
	"log/slog"
	"strings"
	"sync"
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

// resolvedAt is a desk.Incidents whose resolve times a test sets.
type resolvedAt struct {
	mu sync.Mutex
	at map[string]time.Time
}

func (r *resolvedAt) ResolvedAt(_ context.Context, id string) (time.Time, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.at[id], nil
}

func (r *resolvedAt) set(id string, at time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.at[id] = at
}

// TestShowResolves: only a posted decision that still takes an approval is
// rewritten when its alert resolves, once per resolve time, and the record
// says which resolve its message shows.
func TestShowResolves(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		prepare func(t *testing.T, d *desk.Desk, c *testkit.Clock)
		rewrite bool
	}{
		{name: "open", prepare: func(*testing.T, *desk.Desk, *testkit.Clock) {}, rewrite: true},
		{name: "answered", rewrite: false, prepare: func(t *testing.T, d *desk.Desk, _ *testkit.Clock) {
			_, err := d.Answer(t.Context(), approval.Request{DecisionID: "d1", Answer: contracts.AnswerDeny,
				Approver: "alice", Channel: contracts.ChannelWeb, Identity: "web:alice"})
			require.NoError(t, err)
		}},
		{name: "expired", rewrite: false, prepare: func(_ *testing.T, _ *desk.Desk, c *testkit.Clock) { c.Advance(time.Hour) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			slack := fakeslack.New(token)
			t.Cleanup(slack.Close)
			keys, clock := testkit.NewKeys(t), testkit.NewClock(testkit.Epoch)
			inc := &resolvedAt{at: map[string]time.Time{}}
			sc := slackport.New(slackport.Options{APIURL: slack.APIURL(), BotToken: token, Channel: "C0INC"})
			d := desk.New(desk.Deps{Store: store.NewMemory(), Signer: keys.Bridge, Keyring: keys.Keyring,
				Publisher: &publisher{}, Notifier: sc, Now: clock.Now, Logger: slog.New(slog.DiscardHandler), Incidents: inc})
			dec := testkit.Decision("d1", clock.Now())
			require.NoError(t, d.Receive(t.Context(), testkit.Seal(t, keys.Gate, dec, clock.Now())))
			tc.prepare(t, d, clock)
			before := slack.Messages()[0].Updates

			at := clock.Now().Add(time.Minute)
			inc.set(dec.IncidentID, at)
			require.NoError(t, d.ShowResolves(t.Context()))
			require.NoError(t, d.ShowResolves(t.Context()), "a second sweep")
			require.NoError(t, d.ShowResolved(t.Context(), dec.IncidentID, at), "the watch, after the sweep")
			msg := slack.Messages()[0]
			rec, err := d.Get(t.Context(), "d1")
			require.NoError(t, err)
			if !tc.rewrite {
				require.Equal(t, before, msg.Updates)
				require.False(t, strings.Contains(string(msg.Blocks), "The alert resolved at"))
				require.True(t, rec.ResolvedAt.IsZero())
				return
			}
			require.Equal(t, before+1, msg.Updates, "rewritten once")
			require.Contains(t, string(msg.Blocks), "The alert resolved at")
			require.True(t, rec.ResolvedAt.Equal(at))
		})
	}
}
