package operator

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/dockertest"
	"agentk/platform/topology"
	"agentk/services/bridge/fakeslack"
	"agentk/services/deployer/demotarget/demotest"

	"github.com/stretchr/testify/require"
)

// TestShadowIncidentLeavesDockerUnchanged is issue 14's shadow mode end to
// end on the real engine: the demo target runs v1 then v2 under compose, so
// the deployer's Docker-built ledger has a rollback target; shop-api is in
// shadow mode on the gate and the deployer; the alert goes through
// investigation, review and a signed decision marked shadow; the Slack
// request says so; the on-call human approves; the deployer, with its docker
// runtime, publishes outcome shadow with the exact compose command and
// target, and the engine shows the container exactly as it was: same
// container id, image id, start time, restart count. No cooldown taken, the
// ledger untouched, no pin file written.
func TestShadowIncidentLeavesDockerUnchanged(t *testing.T) {
	cli := dockertest.Require(t)
	t.Parallel()
	// The images take what the machine takes (within the test's deadline);
	// the test's own budget starts once they are there.
	repo, v1, v2 := demotest.Images(t, "operator")
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()

	stamp := time.Now().UnixNano()

	dir := t.TempDir()
	project := fmt.Sprintf("agentkoperator%d", stamp)
	composeBin, err := exec.LookPath("docker-compose")
	require.NoError(t, err, "docker-compose v1 is the engine's compose here")
	stack := dockertest.NewCompose(ctx, t, []string{composeBin}, project, dir,
		fmt.Sprintf("version: \"2.4\"\nservices:\n  shop-api:\n    image: %s:${SHOP_API_TAG:-v2}\n", repo))
	file := stack.File
	stack.Up("SHOP_API_TAG=v1")

	state := filepath.Join(dir, "deployer-state")
	// Docker starts v2 a few seconds from now (once the deployer has listed
	// v1): the incident's v2 marker is placed there, as a service's own
	// marker (or the deployer watcher's) would be.
	p := newPipeline(ctx, t, liveIncidentDeployedAt(t, "bad-release-01", time.Now().Add(10*time.Second)), map[string]string{
		"AGENTK_SHADOW":             svc,
		"AGENTK_DEPLOYER_RUNTIME":   "docker",
		"AGENTK_INCIDENT_DIR":       "", // the ledger comes from Docker
		"AGENTK_COMPOSE_PROJECT":    project,
		"AGENTK_COMPOSE_FILE":       file,
		"AGENTK_DEPLOYER_STATE_DIR": state,
		"AGENTK_DEPLOYER_STABILISE": "1s",
		"AGENTK_DEPLOYER_RECOVERY":  "none",
		"PATH":                      os.Getenv("PATH"),
		"HOME":                      os.Getenv("HOME"),
		"DOCKER_HOST":               os.Getenv("DOCKER_HOST"),
	})
	// The gate and the deployer read AGENTK_SHADOW at start: they run apart
	// so that the control below can restart them out of shadow mode.
	stopShadow := p.start(ctx, envelope.RoleDeployer, envelope.RoleGate)
	p.start(ctx, except(envelope.RoleDeployer, envelope.RoleGate)...)
	poll(ctx, t, 30*time.Second, "v1 in the deployer's ledger (from the listing)", func() bool { return p.ledgerLen(ctx) == 1 })
	stack.Up("SHOP_API_TAG=v2")
	poll(ctx, t, 30*time.Second, "v2 in the deployer's ledger (from Docker events)", func() bool { return p.ledgerLen(ctx) == 2 })
	before := dockertest.State(ctx, t, cli, project)
	require.Len(t, before, 1)
	require.Contains(t, before[0], "image="+v2)
	require.Contains(t, before[0], "status=running")

	p.fire(ctx, "shadow")
	d := p.decision(ctx)
	require.Equal(t, contracts.VerdictAllow, d.Verdict, describe(d))
	require.True(t, d.Shadow, "the gate marks the decision shadow")
	msg := p.click(ctx, d.DecisionID, fakeslack.Approve)
	require.Contains(t, msg.Text+string(msg.Blocks), "[SHADOW: nothing will be acted on]", "the approval request is marked shadow")
	appr := next(ctx, p, contracts.SubjectApproval, func(a contracts.ApprovalV1) bool { return a.DecisionID == d.DecisionID })
	require.Equal(t, contracts.AnswerApprove, appr.Answer)
	require.Equal(t, approverName, appr.Approver)

	act := next(ctx, p, contracts.SubjectAction, func(a contracts.ActionV1) bool { return a.DecisionID == d.DecisionID })
	t.Logf("shadow action: %s %s → %s: %s", act.Outcome, act.FromImage, act.ToImage, strings.Join(act.Command, " "))
	require.Equal(t, contracts.OutcomeShadow, act.Outcome, "%+v", act)
	require.Equal(t, []string{composeBin, "-p", project, "-f", file, "-f", filepath.Join(state, "agentk-pins."+project+".yml"),
		"up", "-d", "--force-recreate", "--no-deps", svc}, act.Command, "the exact command the docker runtime would run")
	require.Contains(t, []string{v2, repo + ":v2"}, act.FromImage)
	require.Contains(t, []string{v1, repo + ":v1"}, act.ToImage, "the target is v1, from the Docker-built ledger")
	require.False(t, act.ContainerVerified)
	require.Nil(t, act.Recovered)

	// Nothing moved: the engine, the ledger, the cooldown, the pin file.
	require.Equal(t, before, dockertest.State(ctx, t, cli, project), "shadow mode changed the Docker state")
	require.Equal(t, 2, p.ledgerLen(ctx), "the ledger is not cut back")
	cooldown, err := p.admin.KeyValue(ctx, topology.BucketCooldown)
	require.NoError(t, err)
	_, err = cooldown.Get(ctx, svc)
	require.Error(t, err, "no cooldown taken")
	_, err = os.Stat(filepath.Join(state, "agentk-pins."+project+".yml"))
	require.True(t, os.IsNotExist(err), "no pin file written: %v", err)

	// The control: the same pipeline out of shadow mode does act, and the
	// engine shows it, so the equality above could have failed.
	stopShadow()
	p.env["AGENTK_SHADOW"] = ""
	p.start(ctx, envelope.RoleDeployer, envelope.RoleGate)
	p.fire(ctx, "live")
	live := p.decision(ctx)
	require.Equal(t, contracts.VerdictAllow, live.Verdict, describe(live))
	require.False(t, live.Shadow)
	p.click(ctx, live.DecisionID, fakeslack.Approve)
	rb := next(ctx, p, contracts.SubjectAction, func(a contracts.ActionV1) bool { return a.DecisionID == live.DecisionID })
	require.Equal(t, contracts.OutcomeRolledBack, rb.Outcome, "%+v", rb)
	require.True(t, rb.ContainerVerified)
	require.Equal(t, act.Command, rb.Command, "the shadow action recorded the command a live one runs")
	after := dockertest.State(ctx, t, cli, project)
	require.NotEqual(t, before, after, "a live rollback shows in the Docker state")
	require.Len(t, after, 1)
	require.Contains(t, after[0], "image="+v1)
}
