package desk_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"agentk/contracts/envelope"
	"agentk/services/bridge/internal/approval"
	"agentk/services/bridge/internal/desk"
	"agentk/services/bridge/internal/store"
	"agentk/services/bridge/internal/testkit"
)

type publisher struct {
	mu   sync.Mutex
	n    int
	fail error
}

func (p *publisher) Publish(context.Context, envelope.Envelope, string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fail != nil {
		return p.fail
	}
	p.n++
	return nil
}

func newDesk(t *testing.T, pub *publisher) (*desk.Desk, testkit.Keys, *testkit.Clock) {
	t.Helper()
	k := testkit.NewKeys(t)
	c := testkit.NewClock(testkit.Epoch)
	d := desk.New(desk.Deps{Store: store.NewMemory(), Signer: k.Bridge, Keyring: k.Keyring, Publisher: pub,
		Now: c.Now, Logger: slog.New(slog.DiscardHandler)})
	return d, k, c
}

func TestRacingAnswersYieldOne(t *testing.T) {
	t.Parallel()
	pub := &publisher{}
	d, k, c := newDesk(t, pub)
	require.NoError(t, d.Receive(t.Context(), testkit.Seal(t, k.Gate, testkit.Decision("d1", c.Now()), c.Now())))
	const n = 16
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			_, err := d.Answer(context.Background(), approval.Request{DecisionID: "d1", Answer: "approve",
				Approver: fmt.Sprintf("a%d", i), Channel: "web"})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	ok := 0
	for err := range errs {
		if err == nil {
			ok++
			continue
		}
		require.ErrorIs(t, err, approval.ErrAlreadyAnswered)
	}
	require.Equal(t, 1, ok)
	require.Equal(t, 1, pub.n)
}

func TestReceiveRejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		data func(k testkit.Keys, c *testkit.Clock) []byte
	}{
		{name: "signed by a stranger", data: func(k testkit.Keys, c *testkit.Clock) []byte {
			return testkit.Seal(t, k.Stranger, testkit.Decision("d1", c.Now()), c.Now())
		}},
		{name: "signed by the bridge", data: func(k testkit.Keys, c *testkit.Clock) []byte {
			return testkit.Seal(t, k.Bridge, testkit.Decision("d1", c.Now()), c.Now())
		}},
		{name: "expired", data: func(k testkit.Keys, c *testkit.Clock) []byte {
			b := testkit.Seal(t, k.Gate, testkit.Decision("d1", c.Now()), c.Now())
			c.Advance(20 * 60e9)
			return b
		}},
		{name: "not an envelope", data: func(testkit.Keys, *testkit.Clock) []byte { return []byte(`{}`) }},
		{name: "id unusable as a key", data: func(k testkit.Keys, c *testkit.Clock) []byte {
			return testkit.Seal(t, k.Gate, testkit.Decision("d 1/*", c.Now()), c.Now())
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d, k, c := newDesk(t, &publisher{})
			err := d.Receive(t.Context(), tc.data(k, c))
			require.ErrorIs(t, err, desk.ErrRejected)
			recs, lerr := d.List(t.Context())
			require.NoError(t, lerr)
			require.Empty(t, recs)
		})
	}
}

// listCounting is a store that counts its List calls.
type listCounting struct {
	store.Store
	lists atomic.Int64
}

func (l *listCounting) List(ctx context.Context) ([]approval.Record, error) {
	l.lists.Add(1)
	return l.Store.List(ctx)
}

// TestRepublishOwnReadsOnlyWhatIsPending: the bridge's 5-second retry reads
// the records of the answers this process accepted and could not publish,
// never the whole history; once published, nothing is left to retry.
func TestRepublishOwnReadsOnlyWhatIsPending(t *testing.T) {
	t.Parallel()
	pub := &publisher{fail: errors.New("bus down")}
	k := testkit.NewKeys(t)
	c := testkit.NewClock(testkit.Epoch)
	st := &listCounting{Store: store.NewMemory()}
	d := desk.New(desk.Deps{Store: st, Signer: k.Bridge, Keyring: k.Keyring, Publisher: pub,
		Now: c.Now, Logger: slog.New(slog.DiscardHandler)})
	for _, id := range []string{"d1", "d2", "d3"} {
		require.NoError(t, d.Receive(t.Context(), testkit.Seal(t, k.Gate, testkit.Decision(id, c.Now()), c.Now())))
	}
	_, err := d.Answer(t.Context(), approval.Request{DecisionID: "d2", Answer: "approve", Approver: "alice", Channel: "cli"})
	require.NoError(t, err)
	require.NoError(t, d.RepublishOwn(t.Context()), "still down: kept for the next round")
	require.Zero(t, pub.n)
	pub.mu.Lock()
	pub.fail = nil
	pub.mu.Unlock()
	require.NoError(t, d.RepublishOwn(t.Context()))
	require.Equal(t, 1, pub.n)
	got, err := d.Get(t.Context(), "d2")
	require.NoError(t, err)
	require.True(t, got.Answer.Published)
	require.NoError(t, d.RepublishOwn(t.Context()))
	require.Equal(t, 1, pub.n, "nothing left to re-publish")
	require.Zero(t, st.lists.Load(), "no round read every record")
}

func TestRepublishAfterBusFailure(t *testing.T) {
	t.Parallel()
	pub := &publisher{fail: errors.New("bus down")}
	d, k, c := newDesk(t, pub)
	require.NoError(t, d.Receive(t.Context(), testkit.Seal(t, k.Gate, testkit.Decision("d1", c.Now()), c.Now())))
	rec, err := d.Answer(t.Context(), approval.Request{DecisionID: "d1", Answer: "approve", Approver: "alice", Channel: "cli"})
	require.NoError(t, err, "the answer is accepted and kept")
	require.False(t, rec.Answer.Published)
	pub.mu.Lock()
	pub.fail = nil
	pub.mu.Unlock()
	require.NoError(t, d.Republish(t.Context()))
	require.Equal(t, 1, pub.n)
	got, err := d.Get(t.Context(), "d1")
	require.NoError(t, err)
	require.True(t, got.Answer.Published)
	require.NoError(t, d.Republish(t.Context()))
	require.Equal(t, 1, pub.n, "nothing left to re-publish")
}
