package bus_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"agentk/contracts/envelope"
	"agentk/platform/bus"
	"agentk/platform/fabric"
	"agentk/platform/freeport"
	"agentk/platform/identity"
	"agentk/platform/natsembed"
	"agentk/platform/topology"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
)

// freePort returns a loopback port nobody listens on right now, outside
// the ephemeral range (freeport).
func freePort(t *testing.T) int {
	t.Helper()
	return freeport.Port(t)
}

// startCluster runs a three-node JetStream cluster of embedded servers in
// this process, on loopback, and returns a fabric on it whose streams and
// buckets have three replicas, and the servers by name.
func startCluster(t *testing.T) (*fabric.Fabric, map[string]*natsembed.Server) {
	t.Helper()
	dir := t.TempDir()
	ids, err := identity.Ensure(filepath.Join(dir, "keys"))
	require.NoError(t, err)
	ports := make([]int, 3)
	routes := make([]string, 3)
	for i := range ports {
		ports[i] = freePort(t)
		routes[i] = fmt.Sprintf("nats-route://127.0.0.1:%d", ports[i])
	}
	srvs := make([]*natsembed.Server, 3)
	byName := map[string]*natsembed.Server{}
	urls := make([]string, 3)
	for i := range srvs {
		srv, err := natsembed.Start(natsembed.Options{
			DataDir: filepath.Join(dir, fmt.Sprintf("n%d", i)), Users: ids.PublicKeys(), ServerName: fmt.Sprintf("n%d", i),
			Cluster: &natsembed.Cluster{Name: "agentk-test", Port: ports[i], Routes: routes}, ReadyTimeout: 30 * time.Second,
		})
		require.NoError(t, err)
		t.Cleanup(srv.Shutdown)
		srvs[i], urls[i] = srv, srv.ClientURL()
		byName[fmt.Sprintf("n%d", i)] = srv
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	// Provisioning needs the meta leader the three elect once their routes
	// are up.
	for !slices.ContainsFunc(srvs, func(s *natsembed.Server) bool { return s.NATS().JetStreamIsLeader() }) {
		select {
		case <-ctx.Done():
			t.Fatal("no JetStream meta leader within a minute")
		case <-tick.C:
		}
	}
	f, err := fabric.Remote(ctx, strings.Join(urls, ","), filepath.Join(dir, "keys"), fabric.Options{Logger: testLogger(), Provision: bus.ProvisionConfig{Replicas: 3}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.Close() })
	return f, byName
}

// TestClusteredBucketIsReadThroughTheLeader holds issue 36's first cause: a
// gate that read referenced evidence with a direct get, which any replica
// answers, one that has not applied the sandbox's write yet included, found
// it "missing" and denied a right rollback. On a bucket with three replicas
// every Get goes to the stream leader (which applied every write it
// acknowledged) and no direct get is sent at all; values, missing and
// deleted keys read as nats.go's Get reads them.
func TestClusteredBucketIsReadThroughTheLeader(t *testing.T) {
	f, srvs := startCluster(t)
	adm := admin(t, f)
	var direct atomic.Int64
	sub, err := adm.NATS().Subscribe("$JS.API.DIRECT.GET.>", func(*nats.Msg) { direct.Add(1) })
	require.NoError(t, err)
	t.Cleanup(func() { _ = sub.Unsubscribe() })
	require.NoError(t, adm.NATS().Flush())

	sandbox := connect(t, f, envelope.RoleSandbox)
	t.Cleanup(func() { _ = sandbox.Close() })
	gate := connect(t, f, envelope.RoleGate)
	t.Cleanup(func() { _ = gate.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	w, err := sandbox.KeyValue(ctx, topology.BucketEvidence)
	require.NoError(t, err)
	r, err := gate.KeyValue(ctx, topology.BucketEvidence)
	require.NoError(t, err)

	rev, err := w.Create(ctx, "k1", []byte("v1"))
	require.NoError(t, err)
	e, err := r.Get(ctx, "k1")
	require.NoError(t, err)
	require.Equal(t, []byte("v1"), e.Value())
	require.Equal(t, rev, e.Revision())
	require.Equal(t, "k1", e.Key())
	require.Equal(t, jetstream.KeyValuePut, e.Operation())

	_, err = r.Get(ctx, "never-written")
	require.ErrorIs(t, err, jetstream.ErrKeyNotFound)
	_, err = r.Get(ctx, "bad key")
	require.ErrorIs(t, err, jetstream.ErrInvalidKey)

	// The admin may delete; a deleted key reads as missing, as with nats.go.
	a, err := adm.KeyValue(ctx, topology.BucketEvidence)
	require.NoError(t, err)
	require.NoError(t, a.Delete(ctx, "k1"))
	_, err = r.Get(ctx, "k1")
	require.ErrorIs(t, err, jetstream.ErrKeyNotFound)

	require.NoError(t, adm.NATS().Flush())
	require.Zero(t, direct.Load(), "direct gets sent: any replica, one that is behind included, may answer them")

	// The leader is lost: the read waits for the two others to elect one
	// rather than failing, as a publish does.
	_, err = w.Create(ctx, "k2", []byte("v2"))
	require.NoError(t, err)
	st, err := adm.JetStream().Stream(ctx, "KV_"+topology.BucketEvidence)
	require.NoError(t, err)
	info, err := st.Info(ctx)
	require.NoError(t, err)
	require.NotNil(t, info.Cluster)
	srvs[info.Cluster.Leader].Shutdown()
	e, err = r.Get(ctx, "k2")
	require.NoError(t, err, "read across the election of a new leader")
	require.Equal(t, []byte("v2"), e.Value())
}

// TestAListedClientStaysOnItsList holds the cluster loop's slow reconnect: a
// service given every node's URL reconnected after a partition to an address
// the cluster gossiped (a container IP it could not reach) and waited out its
// dial timeouts. A client given a list uses that list only; one given a
// single URL still learns the others.
func TestAListedClientStaysOnItsList(t *testing.T) {
	f, _ := startCluster(t)
	urls := strings.Split(f.URL(), ",")
	require.Len(t, urls, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, tc := range []struct {
		name string
		url  string
		want int
	}{
		{name: "two of three listed", url: urls[0] + "," + urls[1], want: 2},
		{name: "one URL learns the cluster", url: urls[0], want: 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := fabric.Remote(ctx, tc.url, f.Identities().Dir(), fabric.Options{Logger: testLogger(), NoProvision: true})
			require.NoError(t, err)
			c := connect(t, g, envelope.RoleGate)
			t.Cleanup(func() { _ = c.Close() })
			poll := time.NewTicker(20 * time.Millisecond)
			defer poll.Stop()
			// The server's INFO with the cluster's URLs may follow the
			// connection by a moment.
			for len(c.NATS().Servers()) < tc.want && ctx.Err() == nil {
				<-poll.C
			}
			time.Sleep(200 * time.Millisecond)
			require.Len(t, c.NATS().Servers(), tc.want, "%v", c.NATS().Servers())
		})
	}
}
