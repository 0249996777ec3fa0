package deployer_test

import (
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/dockertest"
	"agentk/platform/fabric"
	"agentk/services/deployer"
	"agentk/services/deployer/internal/dockerrt"
	"agentk/services/deployer/internal/testkit"

	"github.com/docker/docker/api/types/container"
	"github.com/stretchr/testify/require"
)

// TestRunLiveRollbackOverTheFabric is the production wiring end to end: the
// deployer started by Run with the docker runtime syncs its ledger from a
// running compose project, follows a release, takes a bridge-signed approval
// off the bus, rolls back with compose and publishes the verified action.
func TestRunLiveRollbackOverTheFabric(t *testing.T) {
	t.Parallel()
	cli := dockertest.Require(t)
	st, ctx := newComposeStack(t, "run", true, 5*time.Minute)
	repo, v1, project, file, dir := st.Repo, st.V1, st.Project, st.File, st.Dir
	st.Up("v1") // running before the deployer starts: found by the listing

	f, err := fabric.StartEmbedded(ctx, fabric.Options{DataDir: t.TempDir(), Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.Close() })
	env := map[string]string{
		"AGENTK_DEPLOYER_RUNTIME": "docker", "AGENTK_DEPLOYER_SERVICES": "shop-api",
		"AGENTK_COMPOSE_PROJECT": project, "AGENTK_COMPOSE_FILE": file,
		"AGENTK_DEPLOYER_STATE_DIR": filepath.Join(dir, "state"), "AGENTK_DEPLOYER_STABILISE": "1s",
		// The demo target's telemetry goes to no SigNoz here: recovery uses
		// the HTTP probe fallback, chosen explicitly.
		"AGENTK_DEPLOYER_RECOVERY":  "probe",
		"AGENTK_DEPLOYER_PROBE_URL": st.ProbeURL(),
		"PATH":                      os.Getenv("PATH"), "HOME": os.Getenv("HOME"), "DOCKER_HOST": os.Getenv("DOCKER_HOST"),
	}
	d, err := f.Deps(ctx, envelope.RoleDeployer, time.Now, func(k string) string { return env[k] })
	require.NoError(t, err)
	runService(ctx, t, d, deployer.Run)

	ledgerLen := releasesIn(ctx, t, f)
	poll(t, 30*time.Second, "v1 in the ledger from the listing", func() bool { return ledgerLen() == 1 })
	st.Up("v2") // a release: followed through Docker events
	poll(t, 30*time.Second, "v2 in the ledger from events", func() bool { return ledgerLen() == 2 })
	docker := dockerrt.NewDocker(cli, project)
	poll(t, 60*time.Second, "v2 healthy", func() bool {
		cs, err := docker.Containers(ctx, "shop-api")
		return err == nil && len(cs) == 1 && cs[0].State.Health != nil && cs[0].State.Health.Status == container.Healthy
	})

	now := time.Now()
	published := time.Now()
	publishApproval(ctx, t, f, testkit.DecisionFor("dec-"+project, "shop-api", repo+":v2", repo+":v1", now), now)

	act := nextAction(ctx, t, f, time.Now())
	t.Logf("publish→action on the stream %s; action: outcome=%s approval received→container verified %dms (compose %dms, verify %dms), recovered=%v",
		time.Since(published).Round(time.Millisecond), act.Outcome, act.TotalMs, act.ActionMs, act.VerifyMs, act.Recovered != nil && *act.Recovered)
	require.Equal(t, contracts.OutcomeRolledBack, act.Outcome, act.Reason)
	require.True(t, act.ContainerVerified)
	require.NotNil(t, act.Recovered)
	require.True(t, *act.Recovered, act.Reason)
	cs, err := docker.Containers(ctx, "shop-api")
	require.NoError(t, err)
	require.Len(t, cs, 1)
	require.Equal(t, v1, cs[0].Image)
	poll(t, 10*time.Second, "ledger cut back to v1", func() bool { return ledgerLen() == 1 })
}

func poll(t *testing.T, within time.Duration, what string, cond func() bool) {
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
