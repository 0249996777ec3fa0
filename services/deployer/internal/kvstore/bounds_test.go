package kvstore_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"agentk/services/deployer/internal/kvstore"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
)

// unanswered is a bucket whose key listing behaves as nats.go's does when
// the cluster never answers the creation of its ordered consumer: nothing
// is listed, and the lister ends only when its context does.
type unanswered struct{ jetstream.KeyValue }

func (unanswered) Bucket() string { return "agentk_nonces" }

func (unanswered) ListKeys(ctx context.Context, _ ...jetstream.WatchOpt) (jetstream.KeyLister, error) {
	ch := make(chan string)
	go func() {
		<-ctx.Done()
		close(ch)
	}()
	return lister{ch}, nil
}

// Get, Create and Update never get an answer: as a request sent to a node
// as it died or was cut off, they return only when their context ends.
func (unanswered) Get(ctx context.Context, _ string) (jetstream.KeyValueEntry, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func (unanswered) Create(ctx context.Context, _ string, _ []byte, _ ...jetstream.KVCreateOpt) (uint64, error) {
	<-ctx.Done()
	return 0, ctx.Err()
}

func (unanswered) Update(ctx context.Context, _ string, _ []byte, _ uint64) (uint64, error) {
	<-ctx.Done()
	return 0, ctx.Err()
}

type lister struct{ ch chan string }

func (l lister) Keys() <-chan string { return l.ch }
func (l lister) Stop() error         { return nil }

// TestKeysNeverWaitsForever is issue 36's stalled approval: the deployer
// reconciled with its lease's context, which has no deadline, while the
// cluster re-elected after a node was killed; the listing's consumer was
// never created and the deployer waited for it for ever, holding the lease
// and consuming nothing. Keys now gives up after ListTimeout with an error
// (the deployer stops and is restarted), and a listing cut short is never
// returned as a shorter list.
func TestKeysNeverWaitsForever(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		b := kvstore.New(unanswered{})
		keys, err := b.Keys(context.Background())
		require.ErrorIs(t, err, context.DeadlineExceeded)
		require.Nil(t, keys)
	})
}

// TestEveryOperationIsBounded: a caller's context with a far deadline (the
// cluster test's four minutes) no longer lets one unanswered request hold
// the lease or an approval that long; each operation gives up after
// OpTimeout with an error the caller treats as an unreachable store.
func TestEveryOperationIsBounded(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		op   func(ctx context.Context, b *kvstore.Bucket) error
	}{
		{name: "get", op: func(ctx context.Context, b *kvstore.Bucket) error { _, err := b.Get(ctx, "k"); return err }},
		{name: "create", op: func(ctx context.Context, b *kvstore.Bucket) error { _, err := b.Put(ctx, "k", nil, 0); return err }},
		{name: "update", op: func(ctx context.Context, b *kvstore.Bucket) error { _, err := b.Put(ctx, "k", nil, 7); return err }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
				defer cancel()
				start := time.Now()
				err := tc.op(ctx, kvstore.New(unanswered{}))
				require.ErrorIs(t, err, context.DeadlineExceeded)
				require.Equal(t, kvstore.OpTimeout, time.Since(start))
			})
		})
	}
}
