package dockerrt_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/platform/dockertest"
	"agentk/services/deployer/internal/dockerrt"
	"agentk/services/deployer/internal/rollback"
	"agentk/services/deployer/internal/testkit"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/events"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/client"
)

// benchStack is newStack for a benchmark: the same compose file (v2 unless
// the deployer pins v1), project removed at cleanup.
func benchStack(b *testing.B, cli *client.Client) *stack {
	b.Helper()
	if images.err != nil {
		b.Fatalf("building the demo images: %v", images.err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	dir := b.TempDir()
	file := filepath.Join(dir, "docker-compose.yml")
	if err := os.WriteFile(file, []byte(fmt.Sprintf(`version: "3.8"
services:
  shop-api:
    image: %s:${SHOP_API_TAG:-v2}
    ports: ["127.0.0.1:%d:8080"]
`, images.repo, port)), 0o644); err != nil {
		b.Fatal(err)
	}
	bin, err := dockerrt.DetectCompose(context.Background(), exec.LookPath, dockerrt.RunQuiet)
	if err != nil {
		b.Fatal(err)
	}
	s := &stack{project: fmt.Sprintf("agentkb%d", time.Now().UnixNano()), file: file, dir: dir, port: port, cli: cli, compose: bin}
	s.docker = dockerrt.NewDocker(cli, s.project)
	b.Cleanup(func() {
		if out, err := s.run(context.Background(), nil, "down", "-v", "--remove-orphans"); err != nil {
			b.Logf("compose down: %v: %s", err, out)
		}
	})
	return s
}

// waitFor polls cond every 100 ms until it holds or within passes.
func waitFor(b *testing.B, within time.Duration, what string, cond func() bool) {
	b.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			b.Fatalf("timed out after %s waiting for %s", within, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (s *stack) benchDeploy(b *testing.B, tag string) {
	b.Helper()
	if out, err := s.run(context.Background(), []string{"SHOP_API_TAG=" + tag}, "up", "-d"); err != nil {
		b.Fatalf("compose up %s: %v: %s", tag, err, out)
	}
}

func (s *stack) healthy(b *testing.B) func() bool {
	return func() bool {
		cs, err := s.docker.Containers(context.Background(), "shop-api")
		return err == nil && len(cs) == 1 && cs[0].State.Health != nil && cs[0].State.Health.Status == container.Healthy
	}
}

// BenchmarkRollback measures, on the real Docker engine, one signed approval
// handled by the deployer (compose up -d --force-recreate with the pin, the
// Docker API check woken by Docker events, a 1 s stabilisation window and a
// 20-request probe, as TestRollbackOnRealDocker), and reports two figures:
//
//   - approval-to-healthy-ms: approval received → the container runs the
//     target image and Docker reports it healthy (the action's total_ms);
//   - recovery-verdict-ms: approval received → the recovery verdict, which
//     includes the stabilisation window (stabilise-ms, a setting) and the
//     probe.
//
// Beside it, each sample also runs bare `compose up -d --force-recreate
// shop-api` of the same service to the same tag: compose-up-ms is the
// command alone, compose-to-healthy-ms until Docker's health_status event
// says healthy (the same end state as the first figure). The two run as a
// pair, in turns first, so that a machine whose load changes during the run
// weighs on both alike; every metric is the median of the b.N samples, and
// x-bare is the median of the pairs' ratios (deployer ÷ bare, both until
// healthy). Each deployer op starts from nothing, then v1 then v2 in a fresh
// ledger. Skipped unless AGENTK_REQUIRE_DOCKER=1.
//
//	AGENTK_REQUIRE_DOCKER=1 go test -run '^$' -bench Rollback -benchtime 7x ./services/deployer/internal/dockerrt
func BenchmarkRollback(b *testing.B) {
	cli := dockertest.Require(b)
	s := benchStack(b, cli)
	b.Run("paired", func(b *testing.B) {
		m := map[string][]float64{}
		add := func(unit string, d time.Duration) { m[unit] = append(m[unit], float64(d.Milliseconds())) }
		var stabilise time.Duration
		for i := range b.N {
			b.StopTimer()
			var r deployerSample
			var up, toHealthy time.Duration
			if i%2 == 0 {
				r = s.deployerOnce(b, i)
				up, toHealthy = s.bareOnce(b)
			} else {
				up, toHealthy = s.bareOnce(b)
				r = s.deployerOnce(b, i)
			}
			stabilise = r.stabilise
			add("approval-to-healthy-ms", r.healthy)
			add("recovery-verdict-ms", r.verdict)
			add("action-ms", r.action)
			add("verify-ms", r.verify)
			add("compose-up-ms", up)
			add("compose-to-healthy-ms", toHealthy)
			m["x-bare"] = append(m["x-bare"], float64(r.healthy)/float64(toHealthy))
			b.StartTimer()
		}
		for unit, vs := range m {
			b.ReportMetric(median(vs), unit)
		}
		b.ReportMetric(float64(stabilise.Milliseconds()), "stabilise-ms")
	})
}

func median(vs []float64) float64 {
	slices.Sort(vs)
	return vs[len(vs)/2]
}

// deployerSample is one approval handled by the deployer.
type deployerSample struct {
	healthy, verdict, action, verify, stabilise time.Duration
}

// deployerOnce brings v1 then v2 up under a fresh ledger and hands the
// deployer a signed approval to roll back to v1, checking that it did.
func (s *stack) deployerOnce(b *testing.B, i int) deployerSample {
	b.Helper()
	d, keys := s.ready(b)
	approval := testkit.SignedFor(b, keys, fmt.Sprintf("dec-%s-%d", s.project, i), "shop-api", images.repo+":v2", images.repo+":v1", time.Now())
	start := time.Now()
	res, err := d.Handle(context.Background(), approval, 1)
	verdict := time.Since(start)
	if err != nil {
		b.Fatal(err)
	}
	a := res.Action
	if a.Outcome != contracts.OutcomeRolledBack || !a.ContainerVerified || a.Recovered == nil || !*a.Recovered {
		b.Fatalf("rollback: outcome %s verified=%v: %s", a.Outcome, a.ContainerVerified, a.Reason)
	}
	cs, err := s.docker.Containers(context.Background(), "shop-api")
	if err != nil || len(cs) != 1 || cs[0].Image != images.v1ID {
		b.Fatalf("after the rollback: %v, %d containers", err, len(cs))
	}
	ms := func(n int64) time.Duration { return time.Duration(n) * time.Millisecond }
	return deployerSample{healthy: ms(a.TotalMs), verdict: verdict, action: ms(a.ActionMs), verify: ms(a.VerifyMs), stabilise: d.Stabilise}
}

// bareOnce brings v2 up healthy, then times bare compose recreating the
// service on v1: the command alone, and until Docker says healthy.
func (s *stack) bareOnce(b *testing.B) (up, toHealthy time.Duration) {
	b.Helper()
	s.benchDeploy(b, "v2")
	waitFor(b, 60*time.Second, "v2 healthy", s.healthy(b))
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	healthyEvent := s.healthEvent(ctx)
	start := time.Now()
	out, err := s.run(ctx, []string{"SHOP_API_TAG=v1"}, "up", "-d", "--force-recreate", "--no-deps", "shop-api")
	up = time.Since(start)
	if err == nil {
		err = <-healthyEvent
	}
	toHealthy = time.Since(start)
	if err != nil {
		b.Fatalf("compose: %v: %s", err, out)
	}
	return up, toHealthy
}

// ready brings v1 then v2 up under a fresh ledger and returns the deployer.
func (s *stack) ready(b *testing.B) (*rollback.Deployer, testkit.Keys) {
	b.Helper()
	// From nothing: a previous op left v1 running pinned by image id,
	// which a fresh ledger would list as a release of its own.
	if out, err := s.run(context.Background(), nil, "down", "--remove-orphans"); err != nil {
		b.Fatalf("compose down: %v: %s", err, out)
	}
	d, bk, keys := s.watchedDeployer(b, composeRuntime(s), 90*time.Second)
	releases := func() int {
		e, err := bk.Releases.Get(context.Background(), "shop-api")
		if err != nil {
			return 0
		}
		var l contracts.ReleaseLedgerV1
		if _, err := keys.Keyring.Open(e.Value, contracts.SubjectLedger, time.Now(), &l); err != nil {
			return 0
		}
		return len(l.Releases)
	}
	s.benchDeploy(b, "v1")
	waitFor(b, 30*time.Second, "v1 in the ledger", func() bool { return releases() >= 1 })
	s.benchDeploy(b, "v2")
	waitFor(b, 30*time.Second, "v2 in the ledger", func() bool { return releases() == 2 })
	waitFor(b, 60*time.Second, "v2 healthy", s.healthy(b))
	return d, keys
}

// healthEvent subscribes to the project's shop-api container events now and
// delivers nil on the first health_status: healthy (ctx's error if none).
func (s *stack) healthEvent(ctx context.Context) <-chan error {
	f := filters.NewArgs(filters.Arg("type", string(events.ContainerEventType)),
		filters.Arg("label", dockerrt.LabelProject+"="+s.project), filters.Arg("label", dockerrt.LabelService+"=shop-api"))
	evs, errs := s.cli.Events(ctx, events.ListOptions{Filters: f})
	done := make(chan error, 1)
	go func() {
		for {
			select {
			case e := <-evs:
				if strings.TrimSpace(string(e.Action)) == "health_status: healthy" {
					done <- nil
					return
				}
			case err := <-errs:
				done <- err
				return
			case <-ctx.Done():
				done <- ctx.Err()
				return
			}
		}
	}()
	return done
}
