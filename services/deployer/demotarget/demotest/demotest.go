// Package demotest builds the demo target's two releases for the tests that
// run it on the Docker engine (the deployer's, e2e's faults and operator).
package demotest

import (
	"context"
	"fmt"
	"os/exec"
	"testing"
	"time"

	"agentk/services/deployer/demotarget"
)

// Images builds v1 and v2 of the demo target under a fresh repository
// agentk-<name>-<nanos>/shop-api and returns it with the two image ids; the
// images are removed when t ends.
func Images(ctx context.Context, t testing.TB, name string) (repo, v1, v2 string) {
	t.Helper()
	repo = fmt.Sprintf("agentk-%s-%d/shop-api", name, time.Now().UnixNano())
	t.Cleanup(func() { _ = exec.Command("docker", "rmi", "-f", repo+":v1", repo+":v2").Run() })
	var err error
	if v1, err = demotarget.Build(ctx, demotarget.V1(repo)); err != nil {
		t.Fatalf("demotest: build %s:v1: %v", repo, err)
	}
	if v2, err = demotarget.Build(ctx, demotarget.V2(repo)); err != nil {
		t.Fatalf("demotest: build %s:v2: %v", repo, err)
	}
	return repo, v1, v2
}
