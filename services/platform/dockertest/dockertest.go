// Package dockertest is the one switch and the shared helpers of the tests
// that need the Docker engine. They run only with AGENTK_REQUIRE_DOCKER=1;
// with it set, a missing engine fails the test instead of skipping it, so a
// CI job that means to test against Docker cannot pass by skipping.
package dockertest

import (
	"context"
	"fmt"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/client"
)

// Switch is the environment variable that turns Docker tests on.
const Switch = "AGENTK_REQUIRE_DOCKER"

// Enabled reports whether Docker tests should run (Switch=1).
func Enabled() bool { return os.Getenv(Switch) == "1" }

// Require skips t unless Switch=1, and then fails it when no engine answers
// a ping within 10 s. It returns a client negotiating the API version,
// closed when t ends.
func Require(t testing.TB) *client.Client {
	t.Helper()
	if !Enabled() {
		t.Skip("needs the Docker engine: set " + Switch + "=1 to run (a missing engine then fails)")
	}
	cli, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		t.Fatalf("dockertest: docker client: %v", err)
	}
	t.Cleanup(func() { _ = cli.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := cli.Ping(ctx); err != nil {
		t.Fatalf("dockertest: %s=1 but no Docker engine: %v", Switch, err)
	}
	return cli
}

// State is what the engine shows of a compose project, sorted: every
// container's name, id, image id, state, start time and restart count. Two
// equal States mean nothing was recreated, restarted or re-imaged.
func State(ctx context.Context, t testing.TB, cli *client.Client, project string) []string {
	t.Helper()
	cs, err := cli.ContainerList(ctx, container.ListOptions{All: true, Filters: filters.NewArgs(filters.Arg("label", "com.docker.compose.project="+project))})
	if err != nil {
		t.Fatalf("dockertest: list %s: %v", project, err)
	}
	out := make([]string, 0, len(cs))
	for _, c := range cs {
		in, err := cli.ContainerInspect(ctx, c.ID)
		if err != nil {
			t.Fatalf("dockertest: inspect %s: %v", c.ID, err)
		}
		out = append(out, fmt.Sprintf("%s id=%s image=%s status=%s started=%s restarts=%d",
			in.Name, in.ID, in.Image, in.State.Status, in.State.StartedAt, in.RestartCount))
	}
	sort.Strings(out)
	return out
}
