// Package dockerrt is the deployer's Docker adapter, the only code that touches
// the Docker socket: it observes the compose project's containers for the
// release ledger, pins a service to its rollback target and runs compose, and
// proves through the Docker API that the service runs the target image.
package dockerrt

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"agentk/services/deployer/internal/ledger"
	"agentk/services/deployer/internal/policy"
	"agentk/services/deployer/internal/rollback"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/events"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/client"
)

// Compose's container labels.
const (
	LabelProject = "com.docker.compose.project"
	LabelService = "com.docker.compose.service"
	// LabelVersion is the OCI version label, read into the ledger when present.
	LabelVersion = "org.opencontainers.image.version"
	// LabelPin is the label the deployer's pin override gives a service it
	// rolls back: the image id it pinned. A container whose pin names the
	// image it runs was created by the deployer's own rollback, whose marker
	// the rollback emits itself (ledger.Announce).
	LabelPin = "io.agentk.deployer.pin"
)

// Errors of the Docker runtime, each wrapped with the failing command or image.
var (
	ErrDocker    = errors.New("dockerrt: docker")
	ErrNoImage   = errors.New("dockerrt: target image not present locally")
	ErrNoCompose = errors.New("dockerrt: no compose found (docker compose v2 or docker-compose v1)")
	ErrCompose   = errors.New("dockerrt: compose")
)

// Connect returns a client for host (a DOCKER_HOST value; empty: the
// environment's or the default socket) that negotiates the API version with
// the engine, and checks the engine answers.
func Connect(ctx context.Context, host string) (*client.Client, error) {
	opts := []client.Opt{client.FromEnv, client.WithAPIVersionNegotiation()}
	if host != "" {
		opts = append(opts, client.WithHost(host))
	}
	cli, err := client.NewClientWithOpts(opts...)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDocker, err)
	}
	if _, err := cli.Ping(ctx); err != nil {
		_ = cli.Close()
		return nil, fmt.Errorf("%w: ping: %w", ErrDocker, err)
	}
	return cli, nil
}

// Docker reads a compose project's state through the Docker API.
type Docker struct {
	cli     client.APIClient
	project string
	// Poll is how often Verify re-reads the containers when Docker's event
	// stream fails (it is woken by events otherwise).
	Poll time.Duration
	// Log, when set, receives the watcher's errors.
	Log *slog.Logger
}

// NewDocker returns a Docker for one compose project.
func NewDocker(cli client.APIClient, project string) *Docker {
	return &Docker{cli: cli, project: project, Poll: 250 * time.Millisecond}
}

func (d *Docker) filter(service string) filters.Args {
	f := filters.NewArgs(filters.Arg("label", LabelProject+"="+d.project))
	if service != "" {
		f.Add("label", LabelService+"="+service)
	}
	return f
}

// ResolveTarget returns the image id to pin: the ledger's id when it has one
// (and the image is still present), else the local id of its reference.
func (d *Docker) ResolveTarget(ctx context.Context, plan policy.Plan) (string, error) {
	ref := plan.To.ImageID
	if ref == "" {
		ref = plan.To.Image
	}
	img, err := d.cli.ImageInspect(ctx, ref)
	if err != nil {
		return "", fmt.Errorf("%w: %s (%s): %w", ErrNoImage, plan.To.Image, plan.To.ImageID, err)
	}
	if plan.To.ImageID != "" && img.ID != plan.To.ImageID {
		return "", fmt.Errorf("%w: %s resolves to %s, ledger has %s", ErrNoImage, ref, img.ID, plan.To.ImageID)
	}
	return img.ID, nil
}

// Containers returns inspections of the service's containers (all states).
func (d *Docker) Containers(ctx context.Context, service string) ([]container.InspectResponse, error) {
	list, err := d.cli.ContainerList(ctx, container.ListOptions{All: true, Filters: d.filter(service)})
	if err != nil {
		return nil, fmt.Errorf("%w: list %s/%s: %w", ErrDocker, d.project, service, err)
	}
	out := make([]container.InspectResponse, 0, len(list))
	for _, c := range list {
		in, err := d.cli.ContainerInspect(ctx, c.ID)
		if cerrdefs.IsNotFound(err) {
			continue // removed between list and inspect
		}
		if err != nil {
			return nil, fmt.Errorf("%w: inspect %s: %w", ErrDocker, c.ID, err)
		}
		out = append(out, in)
	}
	return out, nil
}

// Verify waits until every container of the service runs the target image
// id, is running, and is healthy where it has a healthcheck, or until ctx is
// done; then it reports what it last saw. It is woken by the Docker events of
// the service's containers (start, health_status, die, …), subscribed to
// before the first look so that none is missed; Poll is only the fallback
// when the event stream fails.
func (d *Docker) Verify(ctx context.Context, plan policy.Plan) (rollback.Verification, error) {
	want, err := d.ResolveTarget(ctx, plan)
	if err != nil {
		return rollback.Verification{}, err
	}
	ectx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Since replays the last seconds of events: one that fired between the
	// subscription's request and the first look still wakes the loop.
	since := strconv.FormatInt(time.Now().Add(-eventReplay).Unix(), 10)
	evs, errs := d.cli.Events(ectx, events.ListOptions{Since: since, Filters: d.containerEvents(plan.Service)})
	// A slow look now and then, in case the engine's clock is far from ours;
	// every Poll once the event stream failed.
	t := time.NewTicker(max(d.Poll, eventSafetyNet))
	defer t.Stop()
	var last rollback.Verification
	for {
		cs, err := d.Containers(ctx, plan.Service)
		if err == nil {
			last = judge(cs, want)
			if last.Verified {
				return last, nil
			}
		}
		select {
		case <-ctx.Done():
			if last.Detail == "" && err != nil {
				last.Detail = err.Error()
			}
			return last, nil
		case <-evs:
		case <-errs:
			evs, errs = nil, nil
			t.Reset(d.Poll)
		case <-t.C:
		}
	}
}

// Verify's event timing.
const (
	// eventReplay is how far back Verify's event subscription starts.
	eventReplay = 10 * time.Second
	// eventSafetyNet is how often Verify looks without an event.
	eventSafetyNet = 2 * time.Second
)

// containerEvents filters the Docker events of one service's containers.
func (d *Docker) containerEvents(service string) filters.Args {
	f := d.filter(service)
	f.Add("type", string(events.ContainerEventType))
	return f
}

// judge is Verify's pure part.
func judge(cs []container.InspectResponse, want string) rollback.Verification {
	if len(cs) == 0 {
		return rollback.Verification{Detail: "no container"}
	}
	var problems []string
	v := rollback.Verification{ImageID: cs[0].Image}
	for _, c := range cs {
		name := strings.TrimPrefix(c.Name, "/")
		if c.Image != want {
			v.ImageID = c.Image
			problems = append(problems, fmt.Sprintf("%s runs %s", name, c.Image))
			continue
		}
		if c.State == nil || !c.State.Running {
			problems = append(problems, name+" not running")
			continue
		}
		if h := c.State.Health; h != nil && h.Status != container.Healthy {
			problems = append(problems, fmt.Sprintf("%s health %s", name, h.Status))
		}
	}
	if len(problems) > 0 {
		v.Detail = strings.Join(problems, "; ")
		return v
	}
	v.Verified, v.ImageID = true, want
	v.Detail = fmt.Sprintf("%d container(s) running %s", len(cs), want)
	return v
}

// Observation maps an inspected container to a ledger observation.
func (d *Docker) Observation(c container.InspectResponse) (ledger.Observation, bool) {
	if c.Config == nil || c.State == nil {
		return ledger.Observation{}, false
	}
	svc := c.Config.Labels[LabelService]
	if svc == "" || c.Config.Labels[LabelProject] != d.project {
		return ledger.Observation{}, false
	}
	started, _ := time.Parse(time.RFC3339Nano, c.State.StartedAt)
	pin := c.Config.Labels[LabelPin]
	return ledger.Observation{
		Project: d.project, Service: svc,
		Image: c.Config.Image, ImageID: c.Image,
		Version: c.Config.Labels[LabelVersion], StartedAt: started,
		ContainerID: c.ID, Pinned: pin != "" && pin == c.Image,
	}, true
}
