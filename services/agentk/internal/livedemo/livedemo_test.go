package livedemo

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/platform/deadline"
	"agentk/platform/dockertest"
	"agentk/platform/lockedbuf"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/network"
)

// TestDemoLiveRollsBackOnDocker is `agentk demo --live` end to end on the
// real engine: v1 then v2 under compose, the demo target's real OTLP in the
// live store, the alert computed from it, the rules investigator, the gate,
// the auto-approver in the fake Slack, the deployer's docker runtime, and
// recovery through the sandbox. The container must end on v1's image id, the
// action must say rolled_back and recovered, and nothing of the run may be
// left behind (containers, network).
func TestDemoLiveRollsBackOnDocker(t *testing.T) {
	dc := dockertest.Require(t)
	// The images are built once for both live tests (testImages), which
	// run side by side: each compose project, network and deployer watcher
	// is its own. The demo's 4 minutes start once the images are there.
	t.Parallel()
	repo, _ := testImages(t)
	ctx, cancel := deadline.Context(context.Background(), t, time.Minute)
	defer cancel()

	var out lockedbuf.Buffer
	started := time.Now()
	res, err := Run(ctx, Options{Repo: repo, Progress: &out, Timeout: 4 * time.Minute})
	t.Logf("demo output:\n%s", out.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("whole run %s; alert → container on v1 %s; alert → verified recovery %s",
		time.Since(started).Round(time.Second), res.ContainerOnV1At.Sub(res.AlertAt).Round(100*time.Millisecond), res.ActionAt.Sub(res.AlertAt).Round(100*time.Millisecond))

	if res.V1ID == "" || res.V1ID == res.V2ID {
		t.Fatalf("images: v1 %q v2 %q", res.V1ID, res.V2ID)
	}
	if res.FinalImage != res.V1ID {
		t.Errorf("the container runs %s, want v1's image id %s", res.FinalImage, res.V1ID)
	}
	if res.FinalVersion != "v1" {
		t.Errorf("the container's version label is %q, want v1", res.FinalVersion)
	}
	a := res.Action
	if a.Outcome != contracts.OutcomeRolledBack || !a.ContainerVerified {
		t.Errorf("action %s container_verified=%v, want rolled_back and verified: %+v", a.Outcome, a.ContainerVerified, a)
	}
	if a.Recovered == nil || !*a.Recovered {
		t.Errorf("action recovered=%v, want true (reason %q)", a.Recovered, a.Reason)
	}
	if res.Decision.Verdict != contracts.VerdictAllow {
		t.Errorf("decision %s", res.Decision.Verdict)
	}
	if res.LiveSpans == 0 || res.AlertBurnRate < liveBurnCritical {
		t.Errorf("live spans %d, alert burn rate %.1f", res.LiveSpans, res.AlertBurnRate)
	}
	// v2's marker is the deployer's watcher's: one, for the container Docker
	// started, of kind deploy from v1 (the demo target emits none).
	if len(res.V2Markers) != 1 {
		t.Fatalf("%d deployment markers of v2 in the live store, want the watcher's one: %+v", len(res.V2Markers), res.V2Markers)
	}
	attr := func(k string) string {
		var v string
		_ = json.Unmarshal(res.V2Markers[0].Attributes[k], &v)
		return v
	}
	if attr("deployment.id") != res.V2Container || res.V2Container == "" || attr("deployment.kind") != "deploy" || attr("deployment.previous_version") != "v1" {
		t.Errorf("v2's marker %+v, want the deployer's watcher's for container %s, kind deploy from v1", res.V2Markers[0].Attributes, res.V2Container)
	}
	for _, want := range []string{"LOCAL STAND-IN FOR SIGNOZ", "DEMO COMPUTES THE ALERT ITSELF", "AUTO-APPROVER", "DEMO SHORTCUT"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the output does not say %q", want)
		}
	}

	// Nothing left behind.
	cs, err := dc.ContainerList(ctx, container.ListOptions{All: true, Filters: filters.NewArgs(filters.Arg("label", "com.docker.compose.project="+res.Project))})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 0 {
		t.Errorf("%d containers of %s left behind", len(cs), res.Project)
	}
	ns, err := dc.NetworkList(ctx, network.ListOptions{Filters: filters.NewArgs(filters.Arg("name", res.Project))})
	if err != nil {
		t.Fatal(err)
	}
	if len(ns) != 0 {
		t.Errorf("network %s left behind", ns[0].Name)
	}
}
