package desk_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"agentk/contracts"

	"agentk/services/bridge/internal/approval"
	"agentk/services/bridge/internal/desk"
	"agentk/services/bridge/internal/store"
	"agentk/services/bridge/internal/testkit"
)

// slowSlack holds chat.postMessage's answer until released, as a slow Slack
// does while the message is already on screen.
type slowSlack struct {
	posted, release chan struct{}
	n               atomic.Int64
}

func (s *slowSlack) Post(context.Context, approval.Record) (string, string, error) {
	n := s.n.Add(1)
	if n == 1 {
		close(s.posted)
		<-s.release
	}
	return "C1", fmt.Sprintf("1700000000.%06d", n), nil
}
func (s *slowSlack) Update(context.Context, approval.Record) error { return nil }
func (s *slowSlack) PostOutcome(context.Context, approval.Record) (string, error) {
	return "", nil
}

// watchedStore tells each Get on gets, and each watch started on watches;
// it counts the writes refused as conflicts.
type watchedStore struct {
	store.Store
	gets, watches chan struct{}
	conflicts     *atomic.Int64
}

func (w watchedStore) Update(ctx context.Context, rec approval.Record, rev uint64) error {
	err := w.Store.Update(ctx, rec, rev)
	if errors.Is(err, store.ErrConflict) {
		w.conflicts.Add(1)
	}
	return err
}

func (w watchedStore) Watch(ctx context.Context, id string) (<-chan approval.Record, error) {
	recs, err := w.Store.Watch(ctx, id)
	select {
	case w.watches <- struct{}{}:
	default:
	}
	return recs, err
}

func (w watchedStore) Get(ctx context.Context, id string) (approval.Record, uint64, error) {
	select {
	case w.gets <- struct{}{}:
	default:
	}
	return w.Store.Get(ctx, id)
}

// TestAClickThatRacesThePostIsCheckedNotRefused: the click arrives while
// chat.postMessage has not answered yet (the message is on screen, its ts
// not recorded): the desk watches the record for the ts, then checks the
// click against it and accepts it (a watch that missed the write would
// leave it refused after messageWait). A click on another message is still
// refused.
func TestAClickThatRacesThePostIsCheckedNotRefused(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	k := testkit.NewKeys(t)
	c := testkit.NewClock(testkit.Epoch)
	slack := &slowSlack{posted: make(chan struct{}), release: make(chan struct{})}
	st := watchedStore{Store: store.NewMemory(), gets: make(chan struct{}, 1), watches: make(chan struct{}, 1), conflicts: &atomic.Int64{}}
	d := desk.New(desk.Deps{Store: st, Signer: k.Bridge, Keyring: k.Keyring, Publisher: &publisher{}, Notifier: slack,
		Now: c.Now, Logger: slog.New(slog.DiscardHandler)})
	received := make(chan error, 1)
	go func() { received <- d.Receive(ctx, testkit.Seal(t, k.Gate, testkit.Decision("d1", c.Now()), c.Now())) }()
	<-slack.posted

	answered := make(chan error, 1)
	go func() {
		_, err := d.Answer(ctx, approval.Request{DecisionID: "d1", Answer: "approve", Approver: "alice",
			Channel: "slack", SlackChannel: "C1", SlackTS: "1700000000.000001"})
		answered <- err
	}()
	for _, step := range []chan struct{}{st.gets, st.watches} { // the answer's read, then its watch: it is waiting
		select {
		case <-step:
		case <-ctx.Done():
			t.Fatal("the answer never read and watched the record")
		}
	}
	close(slack.release)
	require.NoError(t, <-received)
	require.NoError(t, <-answered, "accepted once the ts is recorded")
	// A watch that missed the ts would have had the answer refused when
	// messageWait passed; that refusal's write loses to the ts's.
	require.Zero(t, st.conflicts.Load(), "the click was checked once the watch saw the ts, never refused first")
	rec, err := d.Get(ctx, "d1")
	require.NoError(t, err)
	require.NotNil(t, rec.Answer)

	require.NoError(t, d.Receive(ctx, testkit.Seal(t, k.Gate, testkit.Decision("d2", c.Now()), c.Now())))
	_, err = d.Answer(ctx, approval.Request{DecisionID: "d2", Answer: "approve", Approver: "alice",
		Channel: "slack", SlackChannel: "C1", SlackTS: "1700000000.000001"})
	require.ErrorIs(t, err, approval.ErrWrongMessage, "d1's message does not answer d2")
}

// countingSlack posts each decision with a new ts and counts the posts;
// after tells when a post returned.
type countingSlack struct {
	n     atomic.Int64
	after func()
}

func (s *countingSlack) Post(context.Context, approval.Record) (string, string, error) {
	n := s.n.Add(1)
	if s.after != nil {
		s.after()
	}
	return "C1", fmt.Sprintf("1700000000.%06d", n), nil
}
func (s *countingSlack) Update(context.Context, approval.Record) error { return nil }
func (s *countingSlack) PostOutcome(context.Context, approval.Record) (string, error) {
	return "", nil
}

// leaderlessStore fails every read while down is set, as a clustered bucket
// does while its stream elects a new leader.
type leaderlessStore struct {
	store.Store
	down *atomic.Bool
}

func (s leaderlessStore) Get(ctx context.Context, id string) (approval.Record, uint64, error) {
	if s.down.Load() {
		return approval.Record{}, 0, errors.New("nats: no response from stream")
	}
	return s.Store.Get(ctx, id)
}

// TestAPostWhoseTsWasNotRecordedIsRecordedOnRedelivery: the decision is
// posted, then the store loses its leader before the ts is written (make
// test-cluster, the decisions stream's leader killed: every click was then
// refused "not recorded yet" until the test's budget ran out). The delivery
// fails so that it is retried, and the retry records the message already
// posted: one message in Slack, and a click on it is accepted.
func TestAPostWhoseTsWasNotRecordedIsRecordedOnRedelivery(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	k := testkit.NewKeys(t)
	c := testkit.NewClock(testkit.Epoch)
	down := &atomic.Bool{}
	slack := &countingSlack{after: func() { down.Store(true) }}
	d := desk.New(desk.Deps{Store: leaderlessStore{Store: store.NewMemory(), down: down}, Signer: k.Bridge, Keyring: k.Keyring,
		Publisher: &publisher{}, Notifier: slack, Now: c.Now, Logger: slog.New(slog.DiscardHandler)})
	msg := testkit.Seal(t, k.Gate, testkit.Decision("d1", c.Now()), c.Now())

	require.Error(t, d.Receive(ctx, msg), "a ts that could not be recorded fails the delivery, to be retried")
	slack.after = nil
	down.Store(false)
	require.NoError(t, d.Receive(ctx, msg), "the redelivery records the ts")
	require.EqualValues(t, 1, slack.n.Load(), "one message in Slack: the redelivery does not post again")
	rec, err := d.Get(ctx, "d1")
	require.NoError(t, err)
	require.Equal(t, "1700000000.000001", rec.SlackTS)

	_, err = d.Answer(ctx, approval.Request{DecisionID: "d1", Answer: "approve", Approver: "alice",
		Channel: "slack", SlackChannel: "C1", SlackTS: "1700000000.000001"})
	require.NoError(t, err, "a click on the message posted is accepted")
}

// TestPostedButUnrecordedMessagesAreForgotten: a message posted whose ts
// could not be recorded is kept for the decision's redelivery, and no
// longer: once the decision expires (its redelivery is refused before it
// reaches the post, so nothing else would remove it) and once the decision
// was acted on with a ts that another bridge's redelivery recorded. Kept
// for ever, the map grew by one entry per such decision.
func TestPostedButUnrecordedMessagesAreForgotten(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		settle func(t *testing.T, ctx context.Context, d, other *desk.Desk, k testkit.Keys, c *testkit.Clock, msg []byte)
	}{
		{"the decision expired: its refused redelivery prunes it", func(t *testing.T, ctx context.Context, d, _ *desk.Desk, _ testkit.Keys, c *testkit.Clock, msg []byte) {
			c.Advance(16 * time.Minute)
			require.ErrorIs(t, d.Receive(ctx, msg), desk.ErrRejected, "an expired decision is refused")
		}},
		{"the decision expired: another decision's delivery prunes it", func(t *testing.T, ctx context.Context, d, _ *desk.Desk, k testkit.Keys, c *testkit.Clock, _ []byte) {
			c.Advance(16 * time.Minute)
			require.NoError(t, d.Receive(ctx, testkit.Seal(t, k.Gate, testkit.Decision("d2", c.Now()), c.Now())))
		}},
		{"acted on, its ts recorded by another bridge", func(t *testing.T, ctx context.Context, d, other *desk.Desk, k testkit.Keys, c *testkit.Clock, msg []byte) {
			require.NoError(t, other.Receive(ctx, msg), "the other bridge's redelivery posts and records a ts")
			dec := testkit.Decision("d1", testkit.Epoch)
			act := testkit.SealAction(t, k.Deployer, testkit.Action("a1", dec, contracts.OutcomeRolledBack, nil, c.Now()), c.Now())
			require.NoError(t, d.ReceiveAction(ctx, act))
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			k := testkit.NewKeys(t)
			c := testkit.NewClock(testkit.Epoch)
			down := &atomic.Bool{}
			slack := &countingSlack{after: func() { down.Store(true) }}
			mem := store.NewMemory()
			deps := desk.Deps{Store: leaderlessStore{Store: mem, down: down}, Signer: k.Bridge, Keyring: k.Keyring,
				Publisher: &publisher{}, Notifier: slack, Now: c.Now, Logger: slog.New(slog.DiscardHandler)}
			d := desk.New(deps)
			msg := testkit.Seal(t, k.Gate, testkit.Decision("d1", c.Now()), c.Now())
			require.Error(t, d.Receive(ctx, msg), "a ts that could not be recorded fails the delivery")
			require.Equal(t, 1, d.Unrecorded(), "kept for the redelivery to record")
			slack.after = nil
			down.Store(false)
			other := desk.New(desk.Deps{Store: mem, Signer: k.Bridge, Keyring: k.Keyring, Publisher: &publisher{},
				Notifier: &countingSlack{}, Now: c.Now, Logger: slog.New(slog.DiscardHandler)})
			tc.settle(t, ctx, d, other, k, c, msg)
			require.Zero(t, d.Unrecorded(), "forgotten")
		})
	}
}
