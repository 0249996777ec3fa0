package deployer_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/bus"
	"agentk/platform/fabric"
	"agentk/services/deployer"
	"agentk/services/deployer/demotarget"
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
	cli := testkit.RequireDocker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	repo := fmt.Sprintf("agentk-dry-%d/shop-api", time.Now().UnixNano())
	t.Cleanup(func() { _ = exec.Command("docker", "rmi", "-f", repo+":v1", repo+":v2").Run() })
	v1, err := demotarget.Build(ctx, demotarget.V1(repo))
	require.NoError(t, err)
	v2, err := demotarget.Build(ctx, demotarget.V2(repo))
	require.NoError(t, err)

	dir := t.TempDir()
	file := filepath.Join(dir, "docker-compose.yml")
	require.NoError(t, os.WriteFile(file, []byte(fmt.Sprintf("version: \"3.8\"\nservices:\n  shop-api:\n    image: %s:${SHOP_API_TAG:-v2}\n", repo)), 0o644))
	project := fmt.Sprintf("agentkdry%d", time.Now().UnixNano())
	bin, err := dockerrt.DetectCompose(ctx, exec.LookPath, dockerrt.RunQuiet)
	require.NoError(t, err)
	compose := func(tag string, args ...string) {
		argv := append(append([]string(nil), bin...), append([]string{"-p", project, "-f", file}, args...)...)
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Env = append(os.Environ(), "SHOP_API_TAG="+tag)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
	}
	t.Cleanup(func() {
		argv := append(append([]string(nil), bin...), "-p", project, "-f", file, "down", "-v", "--remove-orphans")
		_ = exec.Command(argv[0], argv[1:]...).Run()
	})
	compose("v1", "up", "-d")

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
	ready := make(chan struct{})
	d.Ready = func() { close(ready) }
	rctx, rcancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- deployer.Run(rctx, d) }()
	t.Cleanup(func() {
		rcancel()
		if err := <-done; err != nil {
			t.Logf("stopped: %v", err)
		}
	})
	select {
	case <-ready:
	case err := <-done:
		t.Fatal(err)
	}

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
	compose("v2", "up", "-d")
	poll(t, 30*time.Second, "v2 in the ledger from events", func() bool { return len(ledger().Releases) == 2 })
	l := ledger()
	require.Equal(t, v1, l.Releases[0].ImageID)
	require.Equal(t, v2, l.Releases[1].ImageID)
	docker := dockerrt.NewDocker(cli, project)
	before, err := docker.Containers(ctx, "shop-api")
	require.NoError(t, err)
	require.Len(t, before, 1)

	bridge, err := f.Connect(ctx, envelope.RoleBridge)
	require.NoError(t, err)
	now := time.Now()
	dec := testkit.Decision("dec-"+project, "shop-api", now)
	// The gate approves the move it read from this ledger (the deployer
	// refuses any other).
	dec.CurrentImage, dec.RollbackTarget = l.Releases[1].Image, l.Releases[0].Image
	denv := testkit.SealDecision(t, f.Signer(envelope.RoleGate), dec, now)
	a := testkit.Approval(t, denv, now)
	aenv, err := f.Signer(envelope.RoleBridge).SealJSON(contracts.SubjectApproval, a, now, 10*time.Minute)
	require.NoError(t, err)
	require.NoError(t, bridge.Publish(ctx, contracts.SubjectApproval, bus.Out{Envelope: aenv, MsgID: "approval." + a.DecisionID}, nil))

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
