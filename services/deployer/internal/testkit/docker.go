package testkit

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/docker/docker/client"
)

// DockerSwitch is the environment variable that turns Docker tests on; with
// it set, a missing engine fails the test instead of skipping it.
const DockerSwitch = "AGENTK_REQUIRE_DOCKER"

// DockerEnabled reports whether Docker tests should run.
func DockerEnabled() bool { return os.Getenv(DockerSwitch) == "1" }

// RequireDocker skips t unless AGENTK_REQUIRE_DOCKER=1, and then fails it when
// no engine answers. It returns a client negotiating the API version.
func RequireDocker(t testing.TB) *client.Client {
	t.Helper()
	if !DockerEnabled() {
		t.Skip("needs the Docker engine: set " + DockerSwitch + "=1 to run (a missing engine then fails)")
	}
	cli, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		t.Fatalf("testkit: docker client: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := cli.Ping(ctx); err != nil {
		t.Fatalf("testkit: %s=1 but no Docker engine: %v", DockerSwitch, err)
	}
	t.Cleanup(func() { _ = cli.Close() })
	return cli
}
