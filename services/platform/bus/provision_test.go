package bus_test

import (
	"context"
	"testing"
	"time"

	"agentk/contracts/envelope"
	"agentk/platform/bus"
	"agentk/platform/topology"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
)

// TestProvisionedBucketsExpire holds the evidence bucket to the streams'
// retention (a key is read only for a report or review still on its stream,
// so the bucket does not grow without bound) and every other bucket to none:
// a spent decision, a nonce or a freeze that expired would be a safety
// check forgotten.
func TestProvisionedBucketsExpire(t *testing.T) {
	t.Parallel()
	f := startFabric(t, bus.Config{})
	js := admin(t, f).JetStream()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, b := range topology.Buckets {
		kv, err := js.KeyValue(ctx, b)
		require.NoError(t, err, b)
		st, err := kv.Status(ctx)
		require.NoError(t, err, b)
		want := time.Duration(0)
		if b == topology.BucketEvidence {
			want = 30 * 24 * time.Hour
		}
		require.Equal(t, want, st.TTL(), b)
	}
}

// TestBucketConfigTakesTheStreamsMaxAge: an operator who keeps messages 2
// days keeps evidence 2 days, no longer.
func TestBucketConfigTakesTheStreamsMaxAge(t *testing.T) {
	t.Parallel()
	cfg := bus.ProvisionConfig{MaxAge: 48 * time.Hour}
	require.Equal(t, 48*time.Hour, bus.BucketConfig(topology.BucketEvidence, cfg).TTL)
	require.Zero(t, bus.BucketConfig(topology.BucketSpent, cfg).TTL)
	require.Equal(t, uint8(1), bus.BucketConfig(topology.BucketEvidence, cfg).History)
}

// TestProvisionGivesAnOlderBucketItsTTL: a fabric provisioned before the
// evidence bucket expired gets the TTL from the next `agentk provision`.
func TestProvisionGivesAnOlderBucketItsTTL(t *testing.T) {
	t.Parallel()
	f := startFabric(t, bus.Config{})
	js := admin(t, f).JetStream()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	older := bus.BucketConfig(topology.BucketEvidence, bus.ProvisionConfig{})
	older.TTL = 0
	_, err := js.UpdateKeyValue(ctx, older)
	require.NoError(t, err)
	require.NoError(t, bus.Provision(ctx, js, bus.ProvisionConfig{MaxAge: 72 * time.Hour}))
	kv, err := js.KeyValue(ctx, topology.BucketEvidence)
	require.NoError(t, err)
	st, err := kv.Status(ctx)
	require.NoError(t, err)
	require.Equal(t, 72*time.Hour, st.TTL())
}

// TestProvisionStorage: streams and buckets are on the file store unless
// Memory is set (a replay's scratch fabric), and then all of them are in
// memory.
func TestProvisionStorage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		cfg  bus.ProvisionConfig
		want jetstream.StorageType
	}{
		{"default", bus.ProvisionConfig{}, jetstream.FileStorage},
		{"memory", bus.ProvisionConfig{Memory: true}, jetstream.MemoryStorage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, sc := range bus.StreamConfigs(tc.cfg) {
				require.Equal(t, tc.want, sc.Storage, sc.Name)
			}
			for _, b := range topology.Buckets {
				require.Equal(t, tc.want, bus.BucketConfig(b, tc.cfg).Storage, b)
			}
		})
	}
}

// TestProvisionUpdatesWhatExists: Provision creates first (one request a
// stream on a new server) and still updates a stream that exists with
// another configuration, as nats.go's CreateOrUpdate did; provisioned again
// unchanged, nothing fails.
func TestProvisionUpdatesWhatExists(t *testing.T) {
	t.Parallel()
	f := startFabric(t, bus.Config{})
	js := admin(t, f).JetStream()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, bus.Provision(ctx, js, bus.ProvisionConfig{}), "provisioned again unchanged")
	longer := bus.ProvisionConfig{MaxAge: 72 * time.Hour}
	require.NoError(t, bus.Provision(ctx, js, longer))
	for _, sc := range bus.StreamConfigs(longer) {
		st, err := js.Stream(ctx, sc.Name)
		require.NoError(t, err, sc.Name)
		require.Equal(t, 72*time.Hour, st.CachedInfo().Config.MaxAge, sc.Name)
	}
}

// TestStandaloneKeyValueAsksOnce: on the fabric's own standalone server
// (bus.Config.Standalone, set by fabric.StartEmbedded) a bucket is opened
// with one request for its stream's configuration; a connection not told
// so asks again, for the replicas that decide on leader reads.
func TestStandaloneKeyValueAsksOnce(t *testing.T) {
	t.Parallel()
	f := startFabric(t, bus.Config{})
	adm := admin(t, f)
	infos := make(chan *nats.Msg, 16)
	sub, err := adm.NATS().ChanSubscribe("$JS.API.STREAM.INFO.KV_"+topology.BucketEvidence, infos)
	require.NoError(t, err)
	defer func() { _ = sub.Unsubscribe() }()
	require.NoError(t, adm.NATS().Flush())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	count := func(c *bus.Conn) int {
		_, err := c.KeyValue(ctx, topology.BucketEvidence)
		require.NoError(t, err)
		require.NoError(t, c.NATS().Flush())
		require.NoError(t, adm.NATS().Flush())
		n := 0
		for {
			select {
			case <-infos:
				n++
			case <-time.After(200 * time.Millisecond):
				return n
			}
		}
	}
	require.Equal(t, 1, count(connect(t, f, envelope.RoleGate)), "the fabric's own server")
	seed, err := f.Identities().Seed(topology.RoleAdmin)
	require.NoError(t, err)
	told, err := bus.Connect(ctx, bus.Config{URL: f.URL(), Name: topology.RoleAdmin, Seed: seed})
	require.NoError(t, err)
	defer func() { _ = told.Close() }()
	require.Equal(t, 2, count(told), "a server not known to be standalone")
}
