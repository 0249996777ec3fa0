package store_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"agentk/platform/fabric"
	"agentk/platform/topology"
	"agentk/services/bridge/internal/approval"
	"agentk/services/bridge/internal/store"
)

// next is the watch's next record; it fails the test if none comes before
// ctx ends or the channel closes.
func next(ctx context.Context, t *testing.T, recs <-chan approval.Record) approval.Record {
	t.Helper()
	select {
	case rec, ok := <-recs:
		require.True(t, ok, "the watch ended")
		return rec
	case <-ctx.Done():
		t.Fatal("the watch delivered nothing")
		return approval.Record{}
	}
}

// TestWatchSeesTheRecordThenEachWrite: a watch gets the record as it is,
// then each write of it (the desk waits so for a decision's Slack ts), a
// record written after the watch started included, and ends with its
// context; over the KV bucket as over the map.
func TestWatchSeesTheRecordThenEachWrite(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		open func(t *testing.T) store.Store
	}{
		{"memory", func(*testing.T) store.Store { return store.NewMemory() }},
		{"kv", func(t *testing.T) store.Store {
			ctx := context.Background()
			f, err := fabric.StartEmbedded(ctx, fabric.Options{DataDir: t.TempDir(), Logger: slog.New(slog.DiscardHandler)})
			require.NoError(t, err)
			t.Cleanup(func() { _ = f.Close() })
			admin, err := f.Admin(ctx)
			require.NoError(t, err)
			t.Cleanup(func() { _ = admin.Close() })
			kv, err := admin.KeyValue(ctx, topology.BucketDecisions)
			require.NoError(t, err)
			return store.NewKV(kv)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			st := tc.open(t)
			require.NoError(t, st.Create(ctx, approval.Record{DecisionID: "d1"}))

			wctx, stop := context.WithCancel(ctx)
			recs, err := st.Watch(wctx, "d1")
			require.NoError(t, err)
			require.Empty(t, next(ctx, t, recs).SlackTS, "the record as it is")
			rec, rev, err := st.Get(ctx, "d1")
			require.NoError(t, err)
			rec.SlackChannel, rec.SlackTS = "C1", "1700000000.000001"
			require.NoError(t, st.Update(ctx, rec, rev))
			require.Equal(t, "1700000000.000001", next(ctx, t, recs).SlackTS, "the write")
			stop()
			for range recs { // drained until the watch ends
			}

			later, err := st.Watch(ctx, "d2")
			require.NoError(t, err)
			require.NoError(t, st.Create(ctx, approval.Record{DecisionID: "d2", SlackTS: "1700000000.000002"}))
			require.Equal(t, "1700000000.000002", next(ctx, t, later).SlackTS, "a record written after the watch started")

			_, err = st.Watch(ctx, "not a key")
			require.ErrorIs(t, err, store.ErrBadKey)
		})
	}
}
