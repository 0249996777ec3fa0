package deployer_test

import (
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/dockertest"
	"agentk/platform/fabric"
	"agentk/services/deployer"
	"agentk/services/deployer/internal/dockerrt"
	"agentk/services/deployer/internal/testkit"

	"github.com/stretchr/testify/require"
)

// TestRunDryRunOnARealStack is "watch first": the dry run, with a compose
// project and no recorded incident, builds its release ledger from the real
// Docker engine exactly as the docker runtime does (the running release from
// the listing, a new one from Docker's events), so an approval finds a
// rollback target and is answered dry_run with the exact compose command,
// which is never run: the container is the same one, on the same image.
func TestRunDryRunOnARealStack(t *testing.T) {
	t.Parallel()
	cli := dockertest.Require(t)
	st, ctx := newComposeStack(t, "dry", false, 5*time.Minute)
	repo, v1, v2, project := st.Repo, st.V1, st.V2, st.Project
	st.Up("v1")

	f, err := fabric.StartEmbedded(ctx, fabric.Options{DataDir: t.TempDir(), Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.Close() })
	// No compose file, no state dir: the dry run needs neither.
	env := map[string]string{
		"AGENTK_DEPLOYER_RUNTIME": "dryrun", "AGENTK_DEPLOYER_SERVICES": "shop-api", "AGENTK_COMPOSE_PROJECT": project,
		"PATH": os.Getenv("PATH"), "HOME": os.Getenv("HOME"), "DOCKER_HOST": os.Getenv("DOCKER_HOST"),
	}
	d, err := f.Deps(ctx, envelope.RoleDeployer, time.Now, func(k string) string { return env[k] })
	require.NoError(t, err)
	runService(ctx, t, d, deployer.Run)

	admin, err := f.Admin(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { _ = admin.Close() })
	releases, err := admin.KeyValue(ctx, "agentk_releases")
	require.NoError(t, err)
	ledger := func() contracts.ReleaseLedgerV1 {
		var l contracts.ReleaseLedgerV1
		e, err := releases.Get(ctx, "shop-api")
		if err != nil {
			return l
		}
		_, err = f.Keyring().Open(e.Value(), contracts.SubjectLedger, time.Now(), &l)
		require.NoError(t, err, "the ledger is deployer-signed")
		return l
	}
	poll(t, 30*time.Second, "v1 in the ledger from the listing", func() bool { return len(ledger().Releases) == 1 })
	st.Up("v2")
	poll(t, 30*time.Second, "v2 in the ledger from events", func() bool { return len(ledger().Releases) == 2 })
	l := ledger()
	require.Equal(t, v1, l.Releases[0].ImageID)
	require.Equal(t, v2, l.Releases[1].ImageID)
	docker := dockerrt.NewDocker(cli, project)
	before, err := docker.Containers(ctx, "shop-api")
	require.NoError(t, err)
	require.Len(t, before, 1)

	now := time.Now()
	dec := testkit.Decision("dec-"+project, "shop-api", now)
	// The gate approves the move it read from this ledger (the deployer
	// refuses any other).
	dec.CurrentImage, dec.RollbackTarget = l.Releases[1].Image, l.Releases[0].Image
	publishApproval(ctx, t, f, dec, now)

	act := nextAction(ctx, t, f, time.Now())
	require.Equal(t, contracts.OutcomeDryRun, act.Outcome, act.Reason)
	require.Equal(t, repo+":v1", act.ToImage, "the target is the ledger's previous release")
	cmd := strings.Join(act.Command, " ")
	require.Contains(t, cmd, "-p "+project)
	require.Contains(t, cmd, "up -d --force-recreate --no-deps shop-api")
	require.False(t, act.ContainerVerified)

	after, err := docker.Containers(ctx, "shop-api")
	require.NoError(t, err)
	require.Len(t, after, 1)
	require.Equal(t, before[0].ID, after[0].ID, "compose never ran: the same container")
	require.Equal(t, v2, after[0].Image, "still the release it was")
	require.Len(t, ledger().Releases, 2, "nothing was rolled back")
}
