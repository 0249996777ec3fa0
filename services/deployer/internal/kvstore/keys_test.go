package kvstore_test

import (
	"context"
	"testing"
	"testing/synctest"

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
