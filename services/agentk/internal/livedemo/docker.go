package livedemo

// docker.go: the Docker engine — the client, the two releases' images, the
// compose project's network and what the engine says the service runs.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"time"

	"agentk/cmd/agentk/livesignoz"
	"agentk/platform/bus"
	"agentk/platform/deadline"
	"agentk/platform/fabric"
	"agentk/services/bridge/fakeslack"
	"agentk/services/deployer/demotarget"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/client"
	"github.com/nats-io/nats.go"
)

// demo is one run's state, handed from step to step.
type demo struct {
	o   Options
	p   *progress
	res Result
	// closers run first at the end, then cleanups (see close).
	closers, cleanups []func()

	dc         *client.Client
	composeBin []string
	// v1, v2 are the released service's releases; caller is shop-api's
	// one release with TwoServices.
	v1, v2 demotarget.Image
	caller demotarget.Image

	netName string
	gw      net.IP
	subnet  *net.IPNet

	store           *livesignoz.Store
	apiKey          string
	sigURL, otlpURL string
	// markerURL is the store's loopback OTLP receiver: the deployer's markers.
	markerURL string

	dir, file string
	hostPort  int

	slack                  *fakeslack.Server
	secret                 string
	bridgeAddr, ingestAddr string
	ingestToken            string
	now                    func() time.Time
	fabric                 *fabric.Fabric
	admin                  *bus.Conn
	msgs                   chan *nats.Msg

	load             *loadLoop
	warmFrom, warmTo time.Time
	v2From           time.Time
	marker           time.Time
}

// connectDocker reaches the engine and finds compose.
func (d *demo) connectDocker(ctx context.Context) error {
	dc, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		return fmt.Errorf("demo --live: docker client: %w", err)
	}
	d.dc = dc
	d.closers = append(d.closers, func() { _ = dc.Close() })
	if _, err := dc.Ping(ctx); err != nil {
		return fmt.Errorf("demo --live needs a Docker engine: %w", err)
	}
	d.composeBin, err = findCompose(ctx)
	return err
}

// images finds (or builds) the two releases of the released service, and
// with TwoServices shop-api's v1 (the caller, never released here).
func (d *demo) images(ctx context.Context) error {
	if !d.o.TwoServices {
		d.v1, d.v2 = demotarget.V1(d.o.Repo), demotarget.V2(d.o.Repo)
		if err := d.image(ctx, d.v1, &d.res.V1ID); err != nil {
			return err
		}
		if err := d.image(ctx, d.v2, &d.res.V2ID); err != nil {
			return err
		}
		d.p.step("images: %s = %s, %s = %s (v2 is the bad release: every second /ask fails)", d.v1.Tag, ShortID(d.res.V1ID), d.v2.Tag, ShortID(d.res.V2ID))
		return nil
	}
	// The same binary plays both roles: the image title label (as build.sh
	// sets it) keeps shop-api's image id apart from payment's.
	titled := func(img demotarget.Image, repo string) demotarget.Image {
		img.Labels = map[string]string{imageTitleLabel: repo}
		return img
	}
	d.caller = titled(demotarget.V1(d.o.Repo), d.o.Repo)
	d.v1, d.v2 = titled(demotarget.V1(d.o.CalleeRepo), d.o.CalleeRepo), titled(demotarget.V2(d.o.CalleeRepo), d.o.CalleeRepo)
	for _, b := range []struct {
		img demotarget.Image
		id  *string
	}{{d.caller, &d.res.CallerV1ID}, {d.v1, &d.res.V1ID}, {d.v2, &d.res.V2ID}} {
		if err := d.image(ctx, b.img, b.id); err != nil {
			return err
		}
	}
	if d.res.CallerV1ID == d.res.V1ID {
		return fmt.Errorf("demo --live: %s and %s have the same image id %s: rebuild them with distinct %s labels (make images)", d.caller.Tag, d.v1.Tag, ShortID(d.res.V1ID), imageTitleLabel)
	}
	d.p.step("images: %s = %s (the caller); %s = %s, %s = %s (v2 is payment's bad release: every second POST /charge fails)",
		d.caller.Tag, ShortID(d.res.CallerV1ID), d.v1.Tag, ShortID(d.res.V1ID), d.v2.Tag, ShortID(d.res.V2ID))
	return nil
}

// image finds img's id, or builds it (Build) when it is missing.
func (d *demo) image(ctx context.Context, img demotarget.Image, id *string) error {
	got, err := imageID(ctx, d.dc, img.Tag)
	if err != nil && d.o.Build {
		d.p.step("building %s (demotarget.Build: a static binary FROM scratch, nothing pulled)", img.Tag)
		stop := deadline.Report(30*time.Second, func(spent time.Duration) {
			d.p.note("still building %s after %s", img.Tag, spent)
		})
		got, err = demotarget.Build(ctx, img)
		stop()
	}
	if err != nil {
		return fmt.Errorf("demo --live: image %s: %w (run `make images`)", img.Tag, err)
	}
	*id = got
	return nil
}

// network creates the compose project's network first, so that the live
// store can listen on its gateway: reachable from the project's containers,
// not from the outside.
func (d *demo) network(ctx context.Context) error {
	d.res.Project = fmt.Sprintf("agentkdemolive%d", time.Now().UnixNano())
	d.netName = d.res.Project + "_net"
	nc, err := d.dc.NetworkCreate(ctx, d.netName, network.CreateOptions{Driver: "bridge", Labels: map[string]string{"agentk.demo": "live"}})
	if err != nil {
		return fmt.Errorf("demo --live: network: %w", err)
	}
	d.cleanups = append(d.cleanups, func() {
		if d.o.Keep {
			return
		}
		rctx, rcancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer rcancel()
		_ = d.dc.NetworkRemove(rctx, nc.ID)
	})
	ni, err := d.dc.NetworkInspect(ctx, nc.ID, network.InspectOptions{})
	if err != nil || len(ni.IPAM.Config) == 0 {
		return fmt.Errorf("demo --live: network %s has no address: %v", d.netName, err)
	}
	gw := net.ParseIP(ni.IPAM.Config[0].Gateway)
	_, subnet, perr := net.ParseCIDR(ni.IPAM.Config[0].Subnet)
	if gw == nil || perr != nil {
		return fmt.Errorf("demo --live: network %s: gateway %q subnet %q", d.netName, ni.IPAM.Config[0].Gateway, ni.IPAM.Config[0].Subnet)
	}
	d.gw, d.subnet = gw, subnet
	return nil
}

// findCompose picks the compose the deployer picks: the v2 plugin when
// `docker compose version` works, else docker-compose v1.
func findCompose(ctx context.Context) ([]string, error) {
	if exec.CommandContext(ctx, "docker", "compose", "version").Run() == nil {
		return []string{"docker", "compose"}, nil
	}
	if p, err := exec.LookPath("docker-compose"); err == nil {
		return []string{p}, nil
	}
	return nil, errors.New("demo --live needs Docker Compose: neither `docker compose` nor docker-compose was found")
}

func imageID(ctx context.Context, dc *client.Client, ref string) (string, error) {
	in, err := dc.ImageInspect(ctx, ref)
	if err != nil {
		return "", err
	}
	return in.ID, nil
}

func serviceContainers(ctx context.Context, dc *client.Client, project, service string) ([]container.Summary, error) {
	return dc.ContainerList(ctx, container.ListOptions{Filters: filters.NewArgs(
		filters.Arg("label", "com.docker.compose.project="+project),
		filters.Arg("label", "com.docker.compose.service="+service))})
}

// runsImage reports whether every running container of the service runs image id.
func runsImage(ctx context.Context, dc *client.Client, project, service, id string) bool {
	cs, err := serviceContainers(ctx, dc, project, service)
	if err != nil || len(cs) == 0 {
		return false
	}
	for _, c := range cs {
		if c.ImageID != id {
			return false
		}
	}
	return true
}

func runsHealthy(ctx context.Context, dc *client.Client, project, service, id string) bool {
	cs, err := serviceContainers(ctx, dc, project, service)
	if err != nil || len(cs) != 1 || cs[0].ImageID != id {
		return false
	}
	in, err := dc.ContainerInspect(ctx, cs[0].ID)
	return err == nil && in.State != nil && in.State.Running && (in.State.Health == nil || in.State.Health.Status == "healthy")
}

// oneContainer is the service's one running container, from the Docker API.
func oneContainer(ctx context.Context, dc *client.Client, project, service string) (Container, error) {
	cs, err := serviceContainers(ctx, dc, project, service)
	if err != nil {
		return Container{}, err
	}
	if len(cs) != 1 {
		return Container{}, fmt.Errorf("demo --live: %d running containers of %s", len(cs), service)
	}
	return Container{ID: cs[0].ID, ImageID: cs[0].ImageID}, nil
}

// serviceImage is the service's one container's image id and version label, from the Docker API.
func serviceImage(ctx context.Context, dc *client.Client, project, service string) (id, version string, err error) {
	c, err := oneContainer(ctx, dc, project, service)
	if err != nil {
		return "", "", err
	}
	in, err := dc.ContainerInspect(ctx, c.ID)
	if err != nil {
		return "", "", err
	}
	if in.Config != nil {
		version = in.Config.Labels[demotarget.VersionLabel]
	}
	return in.Image, version, nil
}
