package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"agentk/platform/bus"
	"agentk/platform/fabric"
	"agentk/platform/freeport"
	"agentk/platform/identity"
	"agentk/platform/natsembed"
)

// cluster3 starts a three-node JetStream cluster of embedded nats-servers
// in this process, on loopback, and joins it as a fabric whose streams and
// buckets have three replicas; every service connection gets the three
// URLs.
func cluster3(tb testing.TB) *fabric.Fabric {
	tb.Helper()
	dir := tb.TempDir()
	ids, err := identity.Ensure(filepath.Join(dir, "keys"))
	if err != nil {
		tb.Fatal(err)
	}
	ports := make([]int, 3)
	routes := make([]string, 3)
	for i := range ports {
		ports[i] = freeport.Port(tb)
		routes[i] = fmt.Sprintf("nats-route://127.0.0.1:%d", ports[i])
	}
	urls := make([]string, 3)
	srvs := make([]*natsembed.Server, 3)
	for i := range 3 {
		srv, err := natsembed.Start(natsembed.Options{
			DataDir: filepath.Join(dir, fmt.Sprintf("n%d", i)), Users: ids.PublicKeys(), ServerName: fmt.Sprintf("bench-n%d", i),
			Cluster: &natsembed.Cluster{Name: "agentk-bench", Port: ports[i], Routes: routes}, ReadyTimeout: 30 * time.Second,
		})
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(srv.Shutdown)
		srvs[i], urls[i] = srv, srv.ClientURL()
	}
	// Provisioning needs the JetStream meta leader the three elect once
	// their routes are up (a request sent before may never be answered).
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for !slices.ContainsFunc(srvs, func(s *natsembed.Server) bool { return s.NATS().JetStreamIsLeader() }) {
		select {
		case <-ctx.Done():
			tb.Fatal("no JetStream meta leader within a minute")
		case <-tick.C:
		}
	}
	f, err := fabric.Remote(ctx, strings.Join(urls, ","), filepath.Join(dir, "keys"), fabric.Options{Provision: bus.ProvisionConfig{Replicas: 3}})
	if err != nil {
		tb.Fatalf("cluster not provisioned: %v", err)
	}
	tb.Cleanup(func() { _ = f.Close() })
	return f
}
