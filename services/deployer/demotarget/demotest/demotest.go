// Package demotest builds the demo target's two releases for the tests that
// run it on the Docker engine (the deployer's, e2e's faults and operator).
package demotest

import (
	"context"
	"fmt"
	"os/exec"
	"testing"
	"time"

	"agentk/platform/deadline"
	"agentk/services/deployer/demotarget"
)

// Images builds v1 and v2 of the demo target under a fresh repository
// agentk-<name>-<nanos>/shop-api and returns it with the two image ids; the
// images are removed when t ends. A build takes what the machine takes: it
// is bounded by t's own deadline (go test -timeout, less a minute to fail
// and clean up), never by a fixed time, and logs every 30 s that it is
// still running. Callers start their own clock once Images returns.
func Images(t testing.TB, name string) (repo, v1, v2 string) {
	t.Helper()
	repo = fmt.Sprintf("agentk-%s-%d/shop-api", name, time.Now().UnixNano())
	t.Cleanup(func() { _ = exec.Command("docker", "rmi", "-f", repo+":v1", repo+":v2").Run() })
	ctx, cancel := buildContext(t)
	defer cancel()
	var err error
	if v1, err = build(ctx, t, demotarget.V1(repo)); err != nil {
		t.Fatalf("demotest: build %s:v1: %v", repo, err)
	}
	if v2, err = build(ctx, t, demotarget.V2(repo)); err != nil {
		t.Fatalf("demotest: build %s:v2: %v", repo, err)
	}
	return repo, v1, v2
}

// buildContext ends a minute before t's deadline when t has one (a
// *testing.T), else never on its own.
func buildContext(t testing.TB) (context.Context, context.CancelFunc) {
	if dt, ok := t.(deadline.Test); ok {
		return deadline.Context(context.Background(), dt, time.Minute)
	}
	return context.WithCancel(context.Background())
}

func build(ctx context.Context, t testing.TB, img demotarget.Image) (string, error) {
	stop := deadline.Report(30*time.Second, func(spent time.Duration) {
		t.Logf("demotest: still building %s after %s", img.Tag, spent)
	})
	defer stop()
	return demotarget.Build(ctx, img)
}
