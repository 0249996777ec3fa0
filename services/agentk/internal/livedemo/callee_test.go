package livedemo

import (
	"context"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/platform/deadline"
	"agentk/platform/dockertest"
	"agentk/platform/lockedbuf"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/client"
	"github.com/stretchr/testify/require"
)

// TestDemoLiveRollsBackTheCallee is `agentk demo --live --two-services` end
// to end on the real engine (issue 33, DESIGN.md rule 17): shop-api calls
// payment; payment is released v1 → v2 under compose; shop-api's SLO burns
// and the alert fires on shop-api. The gate must deny shop-api's rollback
// (it released nothing) and allow the derived decision about payment; the
// deployer must roll payment back on Docker, leave shop-api's container
// alone, and verify that shop-api's SLO recovered; nothing of the run may
// be left behind.
func TestDemoLiveRollsBackTheCallee(t *testing.T) {
	dc := dockertest.Require(t)
	// The images are built once for both live tests (testImages), which
	// run side by side; the demo's own 6 minutes start once they are there
	// (measured: 100–165 s on a loaded machine, the investigation over the
	// bigger store 25–50 s).
	t.Parallel()
	repo, callee := testImages(t)
	ctx, cancel := deadline.Context(context.Background(), t, time.Minute)
	defer cancel()

	var out lockedbuf.Buffer
	started := time.Now()
	res, err := Run(ctx, Options{Repo: repo, CalleeRepo: callee, TwoServices: true, Progress: &out, Timeout: 6 * time.Minute})
	t.Logf("demo output:\n%s", out.String())
	if res.Project != "" {
		// Run removes its project itself; this is the safety net when it
		// stopped half-way.
		t.Cleanup(func() { removeProject(dc, res.Project) })
	}
	require.NoError(t, err)
	t.Logf("whole run %s; alert → derived decision %s; alert → payment on v1 %s; alert → verified recovery %s",
		time.Since(started).Round(time.Second), res.DecisionAt.Sub(res.AlertAt).Round(100*time.Millisecond),
		res.ContainerOnV1At.Sub(res.AlertAt).Round(100*time.Millisecond), res.ActionAt.Sub(res.AlertAt).Round(100*time.Millisecond))

	require.Equal(t, Origin, res.Released)
	require.NotEmpty(t, res.V1ID)
	require.NotEqual(t, res.V1ID, res.V2ID)
	require.NotEqual(t, res.CallerV1ID, res.V1ID, "shop-api's and payment's images are told apart")

	// The caller: denied, not acted on, its container untouched.
	al := res.AlertedDecision
	require.Equal(t, Service, al.Service)
	require.Equal(t, contracts.VerdictDeny, al.Verdict)
	require.Contains(t, al.FailedChecks, contracts.CheckDeploymentRelated)
	_, acted := res.Actions[al.DecisionID]
	require.False(t, acted, "no action on shop-api's denied decision")
	require.NotEmpty(t, res.CallerBefore.ID)
	require.Equal(t, res.CallerBefore, res.CallerAfter, "shop-api's container (id and image) is untouched")
	require.Equal(t, res.CallerV1ID, res.CallerAfter.ImageID)

	// The derived decision allows payment, and payment is rolled back.
	d := res.Decision
	require.Equal(t, Origin, d.Service)
	require.Equal(t, contracts.VerdictAllow, d.Verdict)
	require.NotNil(t, d.Origin)
	require.Equal(t, Service, d.Origin.AlertedService)
	require.Equal(t, al.DecisionID, d.Origin.AlertedDecisionID)
	require.Equal(t, contracts.DerivedDecisionID(al.DecisionID, Origin), d.DecisionID)
	a := res.Action
	require.Equal(t, d.DecisionID, a.DecisionID)
	require.Equal(t, Origin, a.Service)
	require.Equal(t, contracts.OutcomeRolledBack, a.Outcome)
	require.True(t, a.ContainerVerified)
	require.Equal(t, res.V1ID, res.FinalImage, "payment's container runs v1's image id")
	require.Equal(t, "v1", res.FinalVersion)
	require.NotNil(t, a.Recovered, "reason %q", a.Reason)
	require.True(t, *a.Recovered, "shop-api's SLO recovered (reason %q)", a.Reason)

	// payment's v2 marker is the deployer's watcher's.
	require.Len(t, res.V2Markers, 1)
	require.Equal(t, Origin, res.V2Markers[0].Service())

	// Nothing left behind.
	cs, err := dc.ContainerList(ctx, container.ListOptions{All: true, Filters: filters.NewArgs(filters.Arg("label", "com.docker.compose.project="+res.Project))})
	require.NoError(t, err)
	require.Empty(t, cs, "containers of %s left behind", res.Project)
	ns, err := dc.NetworkList(ctx, network.ListOptions{Filters: filters.NewArgs(filters.Arg("name", res.Project))})
	require.NoError(t, err)
	require.Empty(t, ns, "network of %s left behind", res.Project)
}

// removeProject force-removes whatever of the compose project is left:
// containers (with their anonymous volumes) and its network.
func removeProject(dc *client.Client, project string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, _ := dc.ContainerList(ctx, container.ListOptions{All: true, Filters: filters.NewArgs(filters.Arg("label", "com.docker.compose.project="+project))})
	for _, c := range cs {
		_ = dc.ContainerRemove(ctx, c.ID, container.RemoveOptions{Force: true, RemoveVolumes: true})
	}
	ns, _ := dc.NetworkList(ctx, network.ListOptions{Filters: filters.NewArgs(filters.Arg("name", project))})
	for _, n := range ns {
		_ = dc.NetworkRemove(ctx, n.ID)
	}
}
