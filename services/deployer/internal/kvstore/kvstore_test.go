package kvstore_test

import (
	"context"
	"testing"

	"agentk/platform/topology"
	"agentk/services/deployer/internal/kvstore"
	"agentk/services/deployer/internal/testkit"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
)

// TestDeleteIsCompareAndSet: the lease is released only at the revision its
// holder wrote, and a deleted key can be created again (the next holder).
func TestDeleteIsCompareAndSet(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	js := testkit.StartJetStream(t)
	kv, err := js.JS.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: topology.BucketLeases, History: 5})
	require.NoError(t, err)
	b := kvstore.New(kv)
	first, err := b.Put(ctx, "deployer", []byte("a"), 0)
	require.NoError(t, err)
	second, err := b.Put(ctx, "deployer", []byte("a"), first)
	require.NoError(t, err)
	cases := []struct {
		name    string
		rev     uint64
		wantErr error
	}{
		{name: "at a revision since overwritten", rev: first, wantErr: kvstore.ErrConflict},
		{name: "at the current revision", rev: second},
	}
	for _, tc := range cases {
		err := b.Delete(ctx, "deployer", tc.rev)
		if tc.wantErr != nil {
			require.ErrorIs(t, err, tc.wantErr, tc.name)
			continue
		}
		require.NoError(t, err, tc.name)
	}
	_, err = b.Get(ctx, "deployer")
	require.ErrorIs(t, err, kvstore.ErrNotFound, "deleted")
	_, err = b.Put(ctx, "deployer", []byte("b"), 0)
	require.NoError(t, err, "a deleted lease is created again")
}
