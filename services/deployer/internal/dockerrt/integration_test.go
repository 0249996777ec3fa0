package dockerrt_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/platform/deadline"
	"agentk/platform/dockertest"
	"agentk/services/deployer/demotarget"
	"agentk/services/deployer/internal/dockerrt"
	"agentk/services/deployer/internal/policy"
	"agentk/services/deployer/internal/recovery"
	"agentk/services/deployer/internal/rollback"
	"agentk/services/deployer/internal/testkit"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/client"
	"github.com/stretchr/testify/require"
)

// images are built once per test binary run, FROM scratch, no pulls.
var images struct {
	repo       string
	v1ID, v2ID string
	err        error
}

func TestMain(m *testing.M) {
	if !dockertest.Enabled() {
		os.Exit(m.Run())
	}
	images.repo = fmt.Sprintf("agentk-test-%d/shop-api", time.Now().UnixNano())
	// The builds take what the machine takes, within the binary's own
	// -test.timeout (its alarm starts with m.Run, after them): no fixed bet.
	ctx, cancel := deadline.Context(context.Background(), deadline.FromFlags(), 0)
	images.v1ID, images.err = demotarget.Build(ctx, demotarget.V1(images.repo))
	if images.err == nil {
		images.v2ID, images.err = demotarget.Build(ctx, demotarget.V2(images.repo))
	}
	cancel()
	code := m.Run()
	for _, tag := range []string{images.repo + ":v1", images.repo + ":v2"} {
		_ = exec.Command("docker", "rmi", "-f", tag).Run()
	}
	os.Exit(code)
}

// stack is one compose project of the demo target under test.
type stack struct {
	project, file, dir string
	port               int
	docker             *dockerrt.Docker
	cli                *client.Client
	compose            []string
}

func newStack(t *testing.T, cli *client.Client) *stack {
	t.Helper()
	require.NoError(t, images.err, "building the demo images")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	require.NoError(t, ln.Close())
	dir := t.TempDir()
	// The file names v2 by default: a compose up without the deployer's pin
	// would bring v2 back, so only the pin can make the rollback pass.
	file := filepath.Join(dir, "docker-compose.yml")
	require.NoError(t, os.WriteFile(file, []byte(fmt.Sprintf(`version: "3.8"
services:
  shop-api:
    image: %s:${SHOP_API_TAG:-v2}
    ports: ["127.0.0.1:%d:8080"]
`, images.repo, port)), 0o644))
	bin, err := dockerrt.DetectCompose(context.Background(), exec.LookPath, dockerrt.RunQuiet)
	require.NoError(t, err)
	s := &stack{project: fmt.Sprintf("agentkt%d", time.Now().UnixNano()), file: file, dir: dir, port: port, cli: cli, compose: bin}
	s.docker = dockerrt.NewDocker(cli, s.project)
	t.Cleanup(func() {
		out, err := s.run(context.Background(), nil, "down", "-v", "--remove-orphans")
		if err != nil {
			t.Logf("compose down: %v: %s", err, out)
		}
	})
	return s
}

func (s *stack) run(ctx context.Context, env []string, args ...string) (string, error) {
	argv := append(append([]string(nil), s.compose...), append([]string{"-p", s.project, "-f", s.file}, args...)...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// deploy is a human's release: compose up with the tag.
func (s *stack) deploy(t *testing.T, tag string) {
	t.Helper()
	out, err := s.run(context.Background(), []string{"SHOP_API_TAG=" + tag}, "up", "-d")
	require.NoError(t, err, out)
}

func (s *stack) containers(t *testing.T) []container.InspectResponse {
	t.Helper()
	cs, err := s.docker.Containers(context.Background(), "shop-api")
	require.NoError(t, err)
	return cs
}

// eventually polls cond every 100ms until it holds or the deadline passes.
func eventually(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(within)
	defer deadline.Stop()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-deadline.C:
			t.Fatalf("timed out after %s waiting for %s", within, what)
		case <-tick.C:
		}
	}
}

// restartOnly is the prototype's mistake: restart the container and call it a
// rollback. It must fail the same test the compose runtime passes.
type restartOnly struct {
	*dockerrt.Docker
	cli *client.Client
}

func (r restartOnly) Apply(ctx context.Context, p policy.Plan) (rollback.Applied, error) {
	cs, err := r.Containers(ctx, p.Service)
	if err != nil {
		return rollback.Applied{ExitCode: -1}, err
	}
	for _, c := range cs {
		if err := r.cli.ContainerRestart(ctx, c.ID, container.StopOptions{}); err != nil {
			return rollback.Applied{ExitCode: 1}, err
		}
	}
	return rollback.Applied{Command: []string{"docker", "restart", p.Service}}, nil
}

type outcome struct {
	action  contracts.ActionV1
	imageID string
	ledger  contracts.ReleaseLedgerV1
	asks    map[string]int // "status version" → count
}

// rig is a deployer in front of a compose project that runs v2 after v1,
// with the ledger following Docker.
type rig struct {
	s    *stack
	b    testkit.Buckets
	keys testkit.Keys
	d    *rollback.Deployer
}

// ledger reads the service's signed ledger (zero when absent).
func (r *rig) ledger(t *testing.T) contracts.ReleaseLedgerV1 {
	e, err := r.b.Releases.Get(context.Background(), "shop-api")
	if err != nil {
		return contracts.ReleaseLedgerV1{}
	}
	var l contracts.ReleaseLedgerV1
	_, err = r.keys.Keyring.Open(e.Value, contracts.SubjectLedger, time.Now(), &l)
	require.NoError(t, err)
	return l
}

// watchedDeployer is a deployer of the stack's shop-api over fresh buckets
// (a 1 s stabilisation window: the probe itself sends 20 requests after
// it), with the Docker event watch that feeds its ledger running and synced
// until cleanup.
func (s *stack) watchedDeployer(t testing.TB, rt rollback.Runtime, applyTimeout time.Duration) (*rollback.Deployer, testkit.Buckets, testkit.Keys) {
	t.Helper()
	js := testkit.StartJetStream(t)
	b := testkit.CreateBuckets(t, js.JS)
	keys := testkit.NewKeys(t)
	d := &rollback.Deployer{
		Keyring: keys.Keyring, Signer: keys.Deployer, Now: time.Now,
		Rules:  policy.Rules{Allowlist: []string{"shop-api"}, Project: s.project, Cooldown: 10 * time.Minute},
		Nonces: b.Nonces, Cooldown: b.Cooldown, Releases: b.Releases, Freezes: b.Freezes, Spent: b.Spent, Incidents: b.Incidents,
		Runtime:   rt,
		Recovery:  recovery.HTTPProbe{URL: fmt.Sprintf("http://127.0.0.1:%d/ask", s.port), Requests: 20, MaxErrorRate: 0.01},
		Stabilise: time.Second, ApplyTimeout: applyTimeout,
	}
	ctx, cancel := context.WithCancel(context.Background())
	watchDone := make(chan error, 1)
	synced := make(chan struct{})
	go func() { watchDone <- s.docker.Watch(ctx, d.Observe, func() { close(synced) }) }()
	t.Cleanup(func() {
		cancel()
		if err := <-watchDone; err != nil {
			t.Logf("stopped: %v", err)
		}
	})
	<-synced
	return d, b, keys
}

// prepare builds the stack, deploys v1 then v2, and waits for v2 healthy
// with both in the ledger.
func prepare(t *testing.T, runtime func(*stack) rollback.Runtime, applyTimeout time.Duration) *rig {
	cli := dockertest.Require(t)
	s := newStack(t, cli)
	d, b, keys := s.watchedDeployer(t, runtime(s), applyTimeout)
	r := &rig{s: s, b: b, keys: keys, d: d}
	s.deploy(t, "v1")
	eventually(t, 30*time.Second, "v1 in the ledger", func() bool { return len(r.ledger(t).Releases) == 1 })
	s.deploy(t, "v2")
	eventually(t, 30*time.Second, "v2 in the ledger", func() bool { return len(r.ledger(t).Releases) == 2 })
	l := r.ledger(t)
	require.Equal(t, images.v1ID, l.Releases[0].ImageID)
	require.Equal(t, "v1", l.Releases[0].Version, "version from the image's OCI label")
	require.Equal(t, images.v2ID, l.Releases[1].ImageID)
	eventually(t, 60*time.Second, "v2 healthy", func() bool {
		cs := s.containers(t)
		return len(cs) == 1 && cs[0].State.Health != nil && cs[0].State.Health.Status == container.Healthy
	})
	return r
}

// signed is a gate-allowed, bridge-approved rollback of the rig's v2 → v1.
func (r *rig) signed(t *testing.T, id string, now time.Time) []byte {
	return testkit.SignedFor(t, r.keys, id, "shop-api", images.repo+":v2", images.repo+":v1", now)
}

// scenario is the acceptance test: build both images (TestMain), compose up
// v1 then v2 with the ledger watching, approve a signed rollback, and report
// what Docker and the service show afterwards.
func scenario(t *testing.T, runtime func(*stack) rollback.Runtime, applyTimeout time.Duration) outcome {
	r := prepare(t, runtime, applyTimeout)
	s, d := r.s, r.d
	ledgerNow := func() contracts.ReleaseLedgerV1 { return r.ledger(t) }
	res, err := d.Handle(context.Background(), r.signed(t, "dec-"+s.project, time.Now()), 1)
	require.NoError(t, err)
	t.Logf("action: outcome=%s verified=%v recovered=%v action_ms=%d verify_ms=%d approval→verified total_ms=%d command=%q reason=%s",
		res.Action.Outcome, res.Action.ContainerVerified, deref(res.Action.Recovered), res.Action.ActionMs, res.Action.VerifyMs, res.Action.TotalMs, res.Action.Command, res.Action.Reason)

	o := outcome{action: res.Action, ledger: ledgerNow(), asks: map[string]int{}}
	cs := s.containers(t)
	require.Len(t, cs, 1)
	o.imageID = cs[0].Image
	c := http.Client{Timeout: 5 * time.Second}
	for range 20 {
		resp, err := c.Get(fmt.Sprintf("http://127.0.0.1:%d/ask", s.port))
		if err != nil {
			o.asks["error"]++
			continue
		}
		var body struct{ Version string }
		_ = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		o.asks[fmt.Sprintf("%d %s", resp.StatusCode, body.Version)]++
	}
	return o
}

func deref(b *bool) any {
	if b == nil {
		return nil
	}
	return *b
}

// rolledBackToV1 is the acceptance criterion as one check, so the same
// criterion can be shown to fail for a restart-only runtime.
func rolledBackToV1(o outcome) error {
	var errs []error
	if o.action.Outcome != contracts.OutcomeRolledBack {
		errs = append(errs, fmt.Errorf("outcome %s: %s", o.action.Outcome, o.action.Reason))
	}
	if !o.action.ContainerVerified {
		errs = append(errs, errors.New("container not verified"))
	}
	if o.imageID != images.v1ID {
		errs = append(errs, fmt.Errorf("container runs %s, want v1 %s", o.imageID, images.v1ID))
	}
	if o.asks["200 v1"] != 20 {
		errs = append(errs, fmt.Errorf("/ask answers %v, want 20× 200 from v1", o.asks))
	}
	if o.action.Recovered == nil || !*o.action.Recovered {
		errs = append(errs, errors.New("not recovered"))
	}
	return errors.Join(errs...)
}

func composeRuntime(s *stack) rollback.Runtime {
	return &dockerrt.Compose{
		Bin: s.compose, Project: s.project, File: s.file, StateDir: filepath.Join(s.dir, "state"),
		Docker: s.docker, Env: dockerrt.ComposeEnv(os.Getenv),
	}
}

func TestRollbackOnRealDocker(t *testing.T) {
	t.Parallel()
	o := scenario(t, composeRuntime, 90*time.Second)
	require.NoError(t, rolledBackToV1(o))
	require.Equal(t, []string{"up", "-d", "--force-recreate", "--no-deps", "shop-api"}, o.action.Command[len(o.action.Command)-5:])
	require.NotContains(t, o.action.Command, "restart")
	require.Len(t, o.ledger.Releases, 1, "the ledger is cut back to v1; v2 is no target")
	require.Equal(t, images.v1ID, o.ledger.Releases[0].ImageID)
	require.Equal(t, images.repo+":v1", o.action.ToImage)
	require.Equal(t, images.repo+":v2", o.action.FromImage)
}

func TestRestartOnlyRuntimeFailsTheSameTest(t *testing.T) {
	t.Parallel()
	o := scenario(t, func(s *stack) rollback.Runtime { return restartOnly{s.docker, s.cli} }, 15*time.Second)
	err := rolledBackToV1(o)
	require.Error(t, err, "a restart must never pass for a rollback")
	t.Logf("restart-only runtime, as expected: %v", err)
	require.Equal(t, contracts.OutcomeFailed, o.action.Outcome)
	require.False(t, o.action.ContainerVerified)
	require.Equal(t, images.v2ID, o.imageID, "restart keeps the current image")
	require.Len(t, o.ledger.Releases, 2, "a failed rollback leaves the ledger alone")
}
