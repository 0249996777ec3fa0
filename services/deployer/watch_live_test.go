package deployer_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/dockertest"
	"agentk/platform/fabric"
	"agentk/platform/service"
	"agentk/services/deployer"
	"agentk/services/deployer/internal/dockerrt"
	"agentk/services/deployer/internal/testkit"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/client"
	"github.com/stretchr/testify/require"
)

// TestWatcherMarksEachNewImageOnRealDocker runs the deployer started by Run
// (docker runtime, CI's AGENTK_OTEL_DISABLED=1, its markers pointed at an
// OTLP receiver double on loopback) on a compose project and checks every
// marker it sends: a new image gives exactly one, with Docker's start time;
// a docker restart and a restart of the deployer give none; a rollback by
// hand gives one of kind rollback; the deployer's own rollback gives only
// its own. Each expected marker is the sync point for the ones that must
// not exist: the watcher handles Docker's events in order, so a marker that
// should not exist would arrive before the next one that should.
func TestWatcherMarksEachNewImageOnRealDocker(t *testing.T) {
	t.Parallel()
	cli := dockertest.Require(t)
	st, ctx := newComposeStack(t, "watch", true, 6*time.Minute)
	st.Up("v1") // running before the deployer starts: first sight, no marker
	rcv := testkit.StartOTLP(t)
	f, err := fabric.StartEmbedded(ctx, fabric.Options{DataDir: t.TempDir(), Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.Close() })
	env := map[string]string{
		"AGENTK_DEPLOYER_RUNTIME": "docker", "AGENTK_DEPLOYER_SERVICES": "shop-api",
		"AGENTK_COMPOSE_PROJECT": st.Project, "AGENTK_COMPOSE_FILE": st.File,
		"AGENTK_DEPLOYER_STATE_DIR": filepath.Join(st.Dir, "state"), "AGENTK_DEPLOYER_STABILISE": "1s",
		"AGENTK_DEPLOYER_RECOVERY": "probe", "AGENTK_DEPLOYER_PROBE_URL": st.ProbeURL(),
		"AGENTK_OTEL_DISABLED": "1", "AGENTK_DEPLOYER_MARKER_ENDPOINT": rcv.URL,
		"PATH": os.Getenv("PATH"), "HOME": os.Getenv("HOME"), "DOCKER_HOST": os.Getenv("DOCKER_HOST"),
	}
	d, err := f.Deps(ctx, envelope.RoleDeployer, time.Now, func(k string) string { return env[k] })
	require.NoError(t, err)
	stop := startStoppable(ctx, t, d)
	ledgerLen := releasesIn(ctx, t, f)
	poll(t, 30*time.Second, "v1 in the ledger from the listing", func() bool { return ledgerLen() == 1 })
	docker := dockerrt.NewDocker(cli, st.Project)

	// A new image: exactly one marker, at Docker's start time.
	st.Up("v2")
	v2 := running(ctx, t, docker, st.V2)
	m := rcv.WaitSpans(t, "deployment.marker", 1, 30*time.Second)[0]
	requireMarker(t, m, "deploy", "v2", "v1", st.Repo+":v2", st.V2, v2)

	// docker restart: same container, same image, a new start time.
	restarted := v2.State.StartedAt
	require.NoError(t, cli.ContainerRestart(ctx, v2.ID, container.StopOptions{}))
	poll(t, 30*time.Second, "the container restarted", func() bool {
		c := running(ctx, t, docker, st.V2)
		return c.ID == v2.ID && c.State.StartedAt != restarted
	})

	// The deployer restarts on the same KV: the listing finds v2, which
	// the ledger already ends with.
	stop()
	d, err = f.Deps(ctx, envelope.RoleDeployer, time.Now, func(k string) string { return env[k] })
	require.NoError(t, err)
	startStoppable(ctx, t, d)

	// A rollback by hand: compose up with the older image.
	st.Up("v1")
	v1 := running(ctx, t, docker, st.V1)
	got := rcv.WaitSpans(t, "deployment.marker", 2, 30*time.Second)
	require.Len(t, got, 2, "the restart and the deployer's restart announced nothing")
	requireMarker(t, got[1], "rollback", "v1", "v2", st.Repo+":v1", st.V1, v1)

	// v2 again, then the deployer's own rollback: its own marker only.
	st.Up("v2")
	v2 = running(ctx, t, docker, st.V2)
	requireMarker(t, rcv.WaitSpans(t, "deployment.marker", 3, 30*time.Second)[2], "deploy", "v2", "v1", st.Repo+":v2", st.V2, v2)
	poll(t, 60*time.Second, "v2 healthy", func() bool {
		c := running(ctx, t, docker, st.V2)
		return c.State.Health != nil && c.State.Health.Status == container.Healthy
	})
	now := time.Now()
	publishApproval(ctx, t, f, testkit.DecisionFor("dec-"+st.Project, "shop-api", st.Repo+":v2", st.Repo+":v1", now), now)
	act := nextAction(ctx, t, f, time.Now())
	require.Equal(t, contracts.OutcomeRolledBack, act.Outcome, act.Reason)
	got = rcv.WaitSpans(t, "deployment.marker", 4, 30*time.Second)
	require.Equal(t, "rollback", got[3].Attrs["deployment.kind"])
	require.Equal(t, "agentk-deployer", got[3].Attrs["deployment.actor"], "the rollback's own marker")
	require.Equal(t, act.ActionID, got[3].Attrs["deployment.id"])

	// A human ships v2 once more: one marker, and none came from the
	// watcher for the deployer's rollback before it.
	st.Up("v2")
	v2 = running(ctx, t, docker, st.V2)
	got = rcv.WaitSpans(t, "deployment.marker", 5, 30*time.Second)
	require.Len(t, got, 5, "the deployer's rollback was announced once, by the rollback")
	requireMarker(t, got[4], "deploy", "v2", "v1", st.Repo+":v2", st.V2, v2)
}

// requireMarker checks one watcher marker against the container Docker shows.
func requireMarker(t *testing.T, m testkit.Span, kind, version, previous, image, imageID string, c container.InspectResponse) {
	t.Helper()
	started, err := time.Parse(time.RFC3339Nano, c.State.StartedAt)
	require.NoError(t, err)
	require.Equal(t, "shop-api", m.Service)
	require.Equal(t, map[string]string{
		"deployment.kind": kind, "deployment.version": version, "deployment.previous_version": previous,
		"deployment.id": c.ID, "container.id": c.ID, "container.image.name": image, "container.image.id": imageID,
	}, m.Attrs)
	require.True(t, m.Start.Equal(started), "marker at %s, Docker started the container at %s", m.Start, started)
}

// running waits for the service's one running container on imageID and
// returns its inspection.
func running(ctx context.Context, t *testing.T, docker *dockerrt.Docker, imageID string) container.InspectResponse {
	t.Helper()
	var out container.InspectResponse
	poll(t, 30*time.Second, "shop-api running "+imageID, func() bool {
		cs, err := docker.Containers(ctx, "shop-api")
		if err != nil || len(cs) != 1 || cs[0].Image != imageID || !cs[0].State.Running {
			return false
		}
		out = cs[0]
		return true
	})
	return out
}

// startStoppable is runService with a stop the test calls itself (a
// deployer restart); stop is idempotent and also runs when t ends.
func startStoppable(ctx context.Context, t *testing.T, d service.Deps) (stop func()) {
	t.Helper()
	ready := make(chan struct{})
	d.Ready = func() { close(ready) }
	rctx, rcancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- deployer.Run(rctx, d) }()
	var stopped bool
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		rcancel()
		if err := <-done; err != nil && !strings.Contains(err.Error(), "context canceled") {
			t.Logf("deployer stopped: %v", err)
		}
	}
	t.Cleanup(stop)
	select {
	case <-ready:
	case err := <-done:
		t.Fatal(err)
	}
	return stop
}

var _ = client.APIClient(nil)
