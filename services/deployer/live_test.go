package deployer_test

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
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

	"github.com/docker/docker/api/types/container"
	"github.com/stretchr/testify/require"
)

// TestRunLiveRollbackOverTheFabric is the production wiring end to end: the
// deployer started by Run with the docker runtime syncs its ledger from a
// running compose project, follows a release, takes a bridge-signed approval
// off the bus, rolls back with compose and publishes the verified action.
func TestRunLiveRollbackOverTheFabric(t *testing.T) {
	t.Parallel()
	cli := testkit.RequireDocker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	repo := fmt.Sprintf("agentk-run-%d/shop-api", time.Now().UnixNano())
	t.Cleanup(func() { _ = exec.Command("docker", "rmi", "-f", repo+":v1", repo+":v2").Run() })
	v1, err := demotarget.Build(ctx, demotarget.V1(repo))
	require.NoError(t, err)
	_, err = demotarget.Build(ctx, demotarget.V2(repo))
	require.NoError(t, err)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	require.NoError(t, ln.Close())
	dir := t.TempDir()
	file := filepath.Join(dir, "docker-compose.yml")
	require.NoError(t, os.WriteFile(file, []byte(fmt.Sprintf("version: \"3.8\"\nservices:\n  shop-api:\n    image: %s:${SHOP_API_TAG:-v2}\n    ports: [\"127.0.0.1:%d:8080\"]\n", repo, port)), 0o644))
	project := fmt.Sprintf("agentkrun%d", time.Now().UnixNano())
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
	compose("v1", "up", "-d") // running before the deployer starts: found by the listing

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
		"AGENTK_DEPLOYER_PROBE_URL": fmt.Sprintf("http://127.0.0.1:%d/ask", port),
		"PATH":                      os.Getenv("PATH"), "HOME": os.Getenv("HOME"), "DOCKER_HOST": os.Getenv("DOCKER_HOST"),
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
	ledgerLen := func() int {
		e, err := releases.Get(ctx, "shop-api")
		if err != nil {
			return 0
		}
		var l contracts.ReleaseLedgerV1
		if _, err := f.Keyring().Open(e.Value(), contracts.SubjectLedger, time.Now(), &l); err != nil {
			return -1
		}
		return len(l.Releases)
	}
	poll(t, 30*time.Second, "v1 in the ledger from the listing", func() bool { return ledgerLen() == 1 })
	compose("v2", "up", "-d") // a release: followed through Docker events
	poll(t, 30*time.Second, "v2 in the ledger from events", func() bool { return ledgerLen() == 2 })
	docker := dockerrt.NewDocker(cli, project)
	poll(t, 60*time.Second, "v2 healthy", func() bool {
		cs, err := docker.Containers(ctx, "shop-api")
		return err == nil && len(cs) == 1 && cs[0].State.Health != nil && cs[0].State.Health.Status == container.Healthy
	})

	bridge, err := f.Connect(ctx, envelope.RoleBridge)
	require.NoError(t, err)
	now := time.Now()
	denv := testkit.SealDecision(t, f.Signer(envelope.RoleGate), testkit.DecisionFor("dec-"+project, "shop-api", repo+":v2", repo+":v1", now), now)
	a := testkit.Approval(t, denv, now)
	aenv, err := f.Signer(envelope.RoleBridge).SealJSON(contracts.SubjectApproval, a, now, 10*time.Minute)
	require.NoError(t, err)
	published := time.Now()
	require.NoError(t, bridge.Publish(ctx, contracts.SubjectApproval, bus.Out{Envelope: aenv, MsgID: "approval." + a.DecisionID}, nil))

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
