package deployer_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/bus"
	"agentk/platform/dockertest"
	"agentk/platform/fabric"
	"agentk/platform/service"
	"agentk/services/deployer"
	"agentk/services/deployer/internal/dockerrt"
	"agentk/services/deployer/internal/lease"
	"agentk/services/deployer/internal/policy"
	"agentk/services/deployer/internal/testkit"

	"github.com/docker/docker/api/types/container"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
)

// TestCrashMidActionOnRealDocker kills the deployer in the middle of a real
// rollback (compose project on the Docker engine, embedded fabric, Run as in
// production) and starts a new one on the same KV and state dir. The crash is
// the deployer's NATS connection closed hard and its context cancelled at a
// point of acting (deployer.SetInterrupt, a decorator of the docker runtime): no ack, no nack, no KV write,
// no publish after it, as if the process had died there.
//
//   - applied: compose has run (the container is on v1), nothing published.
//     The restart reconciles from Docker: one `rolled_back`, container
//     verified, recovery not claimed.
//   - acting: the journal says acting, the cooldown is taken, compose has
//     not run. The restart finds the container still on v2: one `failed`,
//     not retried (never a second automatic rollback).
//
// Either way the redelivered approval runs nothing: the container keeps its
// id and start time, the seam sees no second attempt, and the stream holds
// exactly one action for the approval.
func TestCrashMidActionOnRealDocker(t *testing.T) {
	t.Parallel()
	for _, point := range []string{deployer.InterruptApplied, deployer.InterruptActing} {
		t.Run(point, func(t *testing.T) {
			t.Parallel()
			crashMidAction(t, point)
		})
	}
}

// deployerProc is one deployer "process": Run on its own connection.
type deployerProc struct {
	deps    service.Deps
	cancel  context.CancelFunc
	stopped chan struct{}
	err     error
}

func crashMidAction(t *testing.T, point string) {
	cli := dockertest.Require(t)
	st, ctx := newComposeStack(t, "crash-"+point, true, 5*time.Minute)
	repo, v1, v2, project, file, dir := st.Repo, st.V1, st.V2, st.Project, st.File, st.Dir
	st.Up("v1")

	// A short AckWait: the approval the crashed deployer never acked comes
	// back to the new one 5 s after the crash.
	f, err := fabric.StartEmbedded(ctx, fabric.Options{DataDir: t.TempDir(), Logger: slog.New(slog.DiscardHandler), Bus: bus.Config{AckWait: 5 * time.Second}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.Close() })
	env := map[string]string{
		"AGENTK_DEPLOYER_RUNTIME": "docker", "AGENTK_DEPLOYER_SERVICES": "shop-api",
		"AGENTK_COMPOSE_PROJECT": project, "AGENTK_COMPOSE_FILE": file,
		"AGENTK_DEPLOYER_STATE_DIR": filepath.Join(dir, "state"), "AGENTK_DEPLOYER_STABILISE": "1s",
		// Also bounds the reconciliation's Docker verification at start.
		"AGENTK_DEPLOYER_COMPOSE_TIMEOUT": "30s",
		"AGENTK_DEPLOYER_RECOVERY":        "probe",
		// The killed deployer never releases its lease: its restart
		// consumes once that lease expired.
		"AGENTK_DEPLOYER_LEASE":     "1s",
		"AGENTK_DEPLOYER_PROBE_URL": st.ProbeURL(),
		"PATH":                      os.Getenv("PATH"), "HOME": os.Getenv("HOME"), "DOCKER_HOST": os.Getenv("DOCKER_HOST"),
	}
	start := func() *deployerProc {
		t.Helper()
		d, err := f.Deps(ctx, envelope.RoleDeployer, time.Now, func(k string) string { return env[k] })
		require.NoError(t, err)
		// Consuming, not ready: a restart stands by (ready) until the
		// lease the killed deployer held expires.
		ready := make(chan struct{})
		var leads sync.Once
		d.Mode = func(m string) {
			if m == lease.ModeLeader {
				leads.Do(func() { close(ready) })
			}
		}
		rctx, rcancel := context.WithCancel(ctx)
		p := &deployerProc{deps: d, cancel: rcancel, stopped: make(chan struct{})}
		go func() { p.err = deployer.Run(rctx, d); close(p.stopped) }()
		t.Cleanup(func() { rcancel(); <-p.stopped })
		select {
		case <-ready:
		case <-p.stopped:
			t.Fatalf("deployer stopped before consuming: %v", p.err)
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		}
		return p
	}

	// The crash: the first deployer dies at point. calls counts every visit
	// of every point, by both deployers.
	var first atomic.Pointer[deployerProc]
	var calls sync.Map // point → *atomic.Int32
	crashed := make(chan struct{})
	var once sync.Once
	errCrash := errors.New("test: the deployer process died here")
	deployer.SetInterrupt(project, func(_ context.Context, at string, _ policy.Plan) error {
		n, _ := calls.LoadOrStore(at, new(atomic.Int32))
		n.(*atomic.Int32).Add(1)
		p := first.Load()
		if at != point || p == nil {
			return nil
		}
		once.Do(func() {
			p.deps.Bus.NATS().Close() // hard: no ack, no nack, no drain
			p.cancel()
			close(crashed)
		})
		return errCrash
	})
	visits := func(at string) int32 {
		if n, ok := calls.Load(at); ok {
			return n.(*atomic.Int32).Load()
		}
		return 0
	}

	p1 := start()
	first.Store(p1)

	admin, err := f.Admin(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { _ = admin.Close() })
	js := admin.JetStream()
	kv := func(bucket string) jetstream.KeyValue {
		b, err := admin.KeyValue(ctx, bucket)
		require.NoError(t, err)
		return b
	}
	nonces := kv("agentk_nonces")
	ledgerLen := releasesIn(ctx, t, f)
	poll(t, 30*time.Second, "v1 in the ledger from the listing", func() bool { return ledgerLen() == 1 })
	st.Up("v2")
	poll(t, 30*time.Second, "v2 in the ledger from events", func() bool { return ledgerLen() == 2 })
	docker := dockerrt.NewDocker(cli, project)
	poll(t, 60*time.Second, "v2 healthy", func() bool {
		cs, err := docker.Containers(ctx, "shop-api")
		return err == nil && len(cs) == 1 && cs[0].State.Health != nil && cs[0].State.Health.Status == container.Healthy
	})
	before := onlyContainer(ctx, t, docker)

	actionStream, err := js.StreamNameBySubject(ctx, contracts.SubjectAction)
	require.NoError(t, err)
	actions := func() uint64 {
		s, err := js.Stream(ctx, actionStream)
		require.NoError(t, err)
		info, err := s.Info(ctx, jetstream.WithSubjectFilter(contracts.SubjectAction))
		require.NoError(t, err)
		return info.State.Subjects[contracts.SubjectAction]
	}
	journal := func() (string, json.RawMessage) {
		keys, err := nonces.Keys(ctx)
		require.NoError(t, err)
		require.Len(t, keys, 1, "one approval, one nonce")
		e, err := nonces.Get(ctx, keys[0])
		require.NoError(t, err)
		var j struct {
			State  string          `json:"state"`
			Action json.RawMessage `json:"action"`
		}
		require.NoError(t, json.Unmarshal(e.Value(), &j))
		return j.State, j.Action
	}

	now := time.Now()
	published := time.Now()
	a := publishApproval(ctx, t, f, testkit.DecisionFor("dec-"+project, "shop-api", repo+":v2", repo+":v1", now), now)

	select {
	case <-crashed:
	case <-time.After(2 * time.Minute):
		t.Fatalf("the deployer never reached %s", point)
	}
	crashedAt := time.Now()
	select {
	case <-p1.stopped:
	case <-time.After(time.Minute):
		t.Fatal("the crashed deployer's Run did not return")
	}
	t.Logf("%s: approval→crash %s, crash→Run returned %s (%v)", point, crashedAt.Sub(published).Round(time.Millisecond), time.Since(crashedAt).Round(time.Millisecond), p1.err)

	atCrash := onlyContainer(ctx, t, docker)
	state, _ := journal()
	require.Equal(t, "acting", state, "the crash left the journal acting")
	require.Zero(t, actions(), "nothing was published before the crash")
	switch point {
	case deployer.InterruptApplied:
		require.Equal(t, v1, atCrash.Image, "compose ran before the crash")
		require.NotEqual(t, before.ID, atCrash.ID, "compose recreated the container")
	case deployer.InterruptActing:
		require.Equal(t, v2, atCrash.Image, "compose never ran")
		require.Equal(t, before.ID, atCrash.ID)
	}
	require.EqualValues(t, 1, visits(deployer.InterruptActing))

	// The restart: same fabric (KV, streams, durable consumer), same state dir.
	restarted := time.Now()
	start()
	readyIn := time.Since(restarted)
	require.EqualValues(t, 1, actions(), "the reconciliation is published before approvals are consumed")
	act := nextAction(ctx, t, f, time.Now())
	t.Logf("%s: restart→consuming (reconciled and published) %s; action outcome=%s verified=%v recovered=%v reason=%q",
		point, readyIn.Round(time.Millisecond), act.Outcome, act.ContainerVerified, act.Recovered, act.Reason)
	require.Equal(t, "action."+a.ApprovalID, act.ActionID)
	require.Equal(t, repo+":v1", act.ToImage)
	require.Equal(t, repo+":v2", act.FromImage)
	require.Nil(t, act.Recovered, "recovery is not claimed after a crash")
	switch point {
	case deployer.InterruptApplied:
		require.Equal(t, contracts.OutcomeRolledBack, act.Outcome, act.Reason)
		require.True(t, act.ContainerVerified)
		poll(t, 30*time.Second, "ledger cut back to v1", func() bool { return ledgerLen() == 1 })
	case deployer.InterruptActing:
		require.Equal(t, contracts.OutcomeFailed, act.Outcome, act.Reason)
		require.False(t, act.ContainerVerified)
		require.Contains(t, act.Reason, "not retried")
		require.Contains(t, act.Reason, v2, "the reason names what the container runs")
		require.Equal(t, 2, ledgerLen(), "nothing moved: the ledger still ends on v2")
	}
	state, sealed := journal()
	require.Equal(t, "done", state)

	// The approval the crashed deployer never acked comes back (AckWait) and
	// is settled from the journal: nothing runs again.
	approvalStream, err := js.StreamNameBySubject(ctx, contracts.SubjectApproval)
	require.NoError(t, err)
	cons, err := js.Consumer(ctx, approvalStream, "deployer")
	require.NoError(t, err)
	var info *jetstream.ConsumerInfo
	poll(t, 60*time.Second, "the redelivered approval acked", func() bool {
		info, err = cons.Info(ctx)
		return err == nil && info.Delivered.Consumer >= 2 && info.NumAckPending == 0 && info.AckFloor.Consumer == info.Delivered.Consumer
	})
	t.Logf("%s: restart→redelivery settled %s (%d deliveries)", point, time.Since(restarted).Round(time.Millisecond), info.Delivered.Consumer)

	after := onlyContainer(ctx, t, docker)
	require.Equal(t, atCrash.ID, after.ID, "compose did not run again")
	require.Equal(t, atCrash.State.StartedAt, after.State.StartedAt, "the container was not restarted")
	require.Equal(t, atCrash.Image, after.Image)
	require.EqualValues(t, 1, visits(deployer.InterruptActing), "the new deployer never acted")
	require.EqualValues(t, 1, actions(), "exactly one action for the approval")
	state, again := journal()
	require.Equal(t, "done", state)
	require.JSONEq(t, string(sealed), string(again), "the journal keeps the reconciled action")
}

func onlyContainer(ctx context.Context, t *testing.T, docker *dockerrt.Docker) container.InspectResponse {
	t.Helper()
	cs, err := docker.Containers(ctx, "shop-api")
	require.NoError(t, err)
	require.Len(t, cs, 1)
	return cs[0]
}
