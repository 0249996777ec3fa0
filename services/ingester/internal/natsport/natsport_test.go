package natsport_test

import (
	"context"
	"testing"

	"agentk/contracts/envelope"
	"agentk/platform/fabric"
	"agentk/platform/topology"
	"agentk/services/ingester/internal/incidents"
	"agentk/services/ingester/internal/natsport"

	"github.com/stretchr/testify/require"
)

// TestCreateAsync: a key that never existed is written in one send; a live
// key is ErrExists; a deleted key is written again (its delete marker makes
// the first check fail), as kv.Create does; several sent together are each
// acknowledged.
func TestCreateAsync(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f, err := fabric.StartEmbedded(ctx, fabric.Options{DataDir: t.TempDir()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.Close() })
	conn, err := f.Connect(ctx, envelope.RoleIngester)
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	bucket, err := conn.KeyValue(ctx, topology.BucketIncidents)
	require.NoError(t, err)
	kv, err := natsport.NewKV(ctx, conn.JetStream(), bucket)
	require.NoError(t, err)

	_, err = bucket.Create(ctx, "live", []byte("x"))
	require.NoError(t, err)
	_, err = bucket.Create(ctx, "gone", []byte("x"))
	require.NoError(t, err)
	require.NoError(t, bucket.Delete(ctx, "gone"))

	for _, tc := range []struct {
		name string
		keys []string
		err  error
	}{
		{name: "never existed", keys: []string{"fresh"}},
		{name: "three sent together", keys: []string{"k1", "k2", "k3"}},
		{name: "live", keys: []string{"live"}, err: incidents.ErrExists},
		{name: "deleted is created again", keys: []string{"gone"}},
		{name: "just created by this test", keys: []string{"fresh"}, err: incidents.ErrExists},
	} {
		t.Run(tc.name, func(t *testing.T) {
			waits := make([]incidents.Pending[uint64], len(tc.keys))
			for i, k := range tc.keys {
				waits[i] = kv.CreateAsync(ctx, k, []byte("v-"+k))
			}
			for i, wait := range waits {
				rev, err := wait()
				if tc.err != nil {
					require.ErrorIs(t, err, tc.err)
					continue
				}
				require.NoError(t, err)
				e, err := kv.Get(ctx, tc.keys[i])
				require.NoError(t, err)
				require.Equal(t, incidents.Entry{Value: []byte("v-" + tc.keys[i]), Revision: rev}, e)
			}
		})
	}
}

// TestCreateNewAsync: CreateNewAsync writes only a key that never had a
// value, in one send; a live or deleted key is ErrUsed, and Recreate then
// does the rest of Create's steps.
func TestCreateNewAsync(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f, err := fabric.StartEmbedded(ctx, fabric.Options{DataDir: t.TempDir()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.Close() })
	conn, err := f.Connect(ctx, envelope.RoleIngester)
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	bucket, err := conn.KeyValue(ctx, topology.BucketIncidents)
	require.NoError(t, err)
	kv, err := natsport.NewKV(ctx, conn.JetStream(), bucket)
	require.NoError(t, err)
	_, err = bucket.Create(ctx, "live", []byte("x"))
	require.NoError(t, err)
	_, err = bucket.Create(ctx, "gone", []byte("x"))
	require.NoError(t, err)
	require.NoError(t, bucket.Delete(ctx, "gone"))

	for _, tc := range []struct {
		key               string
		newErr, recreated error
	}{
		{key: "fresh"},
		{key: "live", newErr: incidents.ErrUsed, recreated: incidents.ErrExists},
		{key: "gone", newErr: incidents.ErrUsed},
	} {
		t.Run(tc.key, func(t *testing.T) {
			rev, err := kv.CreateNewAsync(ctx, tc.key, []byte("v"))()
			if tc.newErr == nil {
				require.NoError(t, err)
				require.NotZero(t, rev)
				return
			}
			require.ErrorIs(t, err, tc.newErr)
			_, err = kv.Recreate(ctx, tc.key, []byte("v"))
			if tc.recreated != nil {
				require.ErrorIs(t, err, tc.recreated)
				return
			}
			require.NoError(t, err)
			e, err := kv.Get(ctx, tc.key)
			require.NoError(t, err)
			require.Equal(t, "v", string(e.Value))
		})
	}
}
