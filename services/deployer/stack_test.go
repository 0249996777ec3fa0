package deployer_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/bus"
	"agentk/platform/deadline"
	"agentk/platform/dockertest"
	"agentk/platform/fabric"
	"agentk/platform/service"
	"agentk/platform/topology"
	"agentk/services/deployer/demotarget"
	"agentk/services/deployer/internal/dockerrt"
	"agentk/services/deployer/internal/testkit"

	"github.com/stretchr/testify/require"
)

// composeStack is a compose project of one service, shop-api, on the demo
// target's v1 and v2 images built once for the package under a fresh
// repository (sharedImages); the project is removed when the test ends, the
// images when the test binary does. The tests on the real engine
// share it.
type composeStack struct {
	*dockertest.Compose
	Repo, V1, V2 string // repository and the two image ids
	Dir          string // the compose file's directory, free for state
	Port         int    // shop-api's loopback port, 0 when unpublished
}

// stackImages are the demo target's v1 and v2 every compose stack of the
// package runs, built once for the test binary (issue 36: each of the
// five live tests built its own two); each stack is its own compose
// project. TestMain removes them.
var stackImages struct {
	once         sync.Once
	repo, v1, v2 string
	err          error
}

// sharedImages builds, the first time a test calls it, v1 and v2 under a
// fresh repository agentk-deployer-<nanos>/shop-api, as long as the machine
// takes within the calling test's deadline less a minute (demotest.Images
// builds the same per test).
func sharedImages(t *testing.T) (repo, v1, v2 string) {
	t.Helper()
	stackImages.once.Do(func() {
		stackImages.repo = fmt.Sprintf("agentk-deployer-%d/shop-api", time.Now().UnixNano())
		ctx, cancel := deadline.Context(context.Background(), t, time.Minute)
		defer cancel()
		if stackImages.v1, stackImages.err = demotarget.Build(ctx, demotarget.V1(stackImages.repo)); stackImages.err == nil {
			stackImages.v2, stackImages.err = demotarget.Build(ctx, demotarget.V2(stackImages.repo))
		}
	})
	if stackImages.err != nil {
		t.Fatalf("the demo target's images: %v", stackImages.err)
	}
	return stackImages.repo, stackImages.v1, stackImages.v2
}

func TestMain(m *testing.M) {
	code := m.Run()
	if stackImages.repo != "" {
		_ = exec.Command("docker", "rmi", "-f", stackImages.repo+":v1", stackImages.repo+":v2").Run()
	}
	os.Exit(code)
}

// newComposeStack builds the images once for the package (as long as the
// machine takes: sharedImages), then writes the compose file and
// returns the stack with the context of the test's work on it, which ends
// budget after the images were there (and when the test ends); name ends up
// in the repository and the project name. publish maps shop-api's port to a
// free loopback port.
func newComposeStack(t *testing.T, name string, publish bool, budget time.Duration) (*composeStack, context.Context) {
	t.Helper()
	s := &composeStack{Dir: t.TempDir()}
	s.Repo, s.V1, s.V2 = sharedImages(t)
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	t.Cleanup(cancel)
	yaml := fmt.Sprintf("version: \"3.8\"\nservices:\n  shop-api:\n    image: %s:${SHOP_API_TAG:-v2}\n", s.Repo)
	if publish {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		s.Port = ln.Addr().(*net.TCPAddr).Port
		require.NoError(t, ln.Close())
		yaml += fmt.Sprintf("    ports: [\"127.0.0.1:%d:8080\"]\n", s.Port)
	}
	bin, err := dockerrt.DetectCompose(ctx, exec.LookPath, dockerrt.RunQuiet)
	require.NoError(t, err)
	project := fmt.Sprintf("agentk%s%d", strings.ReplaceAll(name, "-", ""), time.Now().UnixNano())
	s.Compose = dockertest.NewCompose(ctx, t, bin, project, s.Dir, yaml)
	return s, ctx
}

// Up runs `compose up -d` with shop-api on tag.
func (s *composeStack) Up(tag string) { s.Compose.Up("SHOP_API_TAG=" + tag) }

// ProbeURL is shop-api's /ask on its published port.
func (s *composeStack) ProbeURL() string { return fmt.Sprintf("http://127.0.0.1:%d/ask", s.Port) }

// runService starts run with d, waits until it is ready (failing the test
// if it stops first) and stops it when the test ends.
func runService(ctx context.Context, t *testing.T, d service.Deps, run func(context.Context, service.Deps) error) {
	t.Helper()
	ready := make(chan struct{})
	d.Ready = func() { close(ready) }
	rctx, rcancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- run(rctx, d) }()
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
}

// publishApproval seals dec as the gate and a fresh approval of it as the
// bridge, and publishes the approval as the bridge does.
func publishApproval(ctx context.Context, t *testing.T, f *fabric.Fabric, dec contracts.DecisionV1, now time.Time) contracts.ApprovalV1 {
	t.Helper()
	bridge, err := f.Connect(ctx, envelope.RoleBridge)
	require.NoError(t, err)
	denv := testkit.SealDecision(t, f.Signer(envelope.RoleGate), dec, now)
	a := testkit.Approval(t, denv, now)
	aenv, err := f.Signer(envelope.RoleBridge).SealJSON(contracts.SubjectApproval, a, now, 10*time.Minute)
	require.NoError(t, err)
	require.NoError(t, bridge.Publish(ctx, contracts.SubjectApproval, bus.Out{Envelope: aenv, MsgID: "approval." + a.DecisionID}, nil))
	return a
}

// releasesIn reads how many releases the deployer's signed ledger of
// shop-api holds: 0 when there is none, -1 when it does not verify.
func releasesIn(ctx context.Context, t *testing.T, f *fabric.Fabric) func() int {
	t.Helper()
	admin, err := f.Admin(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { _ = admin.Close() })
	releases, err := admin.KeyValue(ctx, topology.BucketReleases)
	require.NoError(t, err)
	return func() int {
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
}
