package livedemo

// compose.go: the compose project — its file, written from a template for
// one release, and `compose up` of v1, then of the bad release v2.

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"agentk/cmd/agentk/internal/harness"
	"agentk/contracts/incident"
)

// composeFile is the demo project: shop-api on the demo's own network,
// exporting OTLP to the live store, published on loopback only.
func composeFile(image, otlpURL, netName string, hostPort int) string {
	return fmt.Sprintf(`# agentk demo --live: written by the demo, removed at its end.
version: "2.4"
services:
  shop-api:
    image: %s
    environment:
      OTEL_EXPORTER_OTLP_ENDPOINT: %q
      OTEL_BSP_SCHEDULE_DELAY: "500"
      DEPLOYMENT_ENVIRONMENT: agentk-demo-live
    ports:
      - "127.0.0.1:%d:8080"
    stop_grace_period: 5s
networks:
  default:
    external: true
    name: %s
`, image, otlpURL, hostPort, netName)
}

// composeFile2 is the two-service project (TwoServices): shop-api, as in
// composeFile, calling payment (CALLEE_URL, over the project's network, no
// published port); both export OTLP to the live store.
func composeFile2(callerImage, calleeImage, otlpURL, netName string, hostPort int) string {
	return fmt.Sprintf(`# agentk demo --live --two-services: written by the demo, removed at its end.
version: "2.4"
services:
  shop-api:
    image: %s
    environment:
      OTEL_EXPORTER_OTLP_ENDPOINT: %[3]q
      OTEL_BSP_SCHEDULE_DELAY: "500"
      DEPLOYMENT_ENVIRONMENT: agentk-demo-live
      CALLEE_URL: http://payment:8080
      CALLEE_NAME: payment
    depends_on:
      - payment
    ports:
      - "127.0.0.1:%[4]d:8080"
    stop_grace_period: 5s
  payment:
    image: %[2]s
    environment:
      SERVICE_NAME: payment
      OTEL_EXPORTER_OTLP_ENDPOINT: %[3]q
      OTEL_BSP_SCHEDULE_DELAY: "500"
      DEPLOYMENT_ENVIRONMENT: agentk-demo-live
    stop_grace_period: 5s
networks:
  default:
    external: true
    name: %[5]s
`, callerImage, calleeImage, otlpURL, hostPort, netName)
}

// compose runs the compose command on the project's file.
func (d *demo) compose(ctx context.Context, args ...string) error {
	cmd := exec.CommandContext(ctx, d.composeBin[0], append(append(d.composeBin[1:], "-p", d.res.Project, "-f", d.file), args...)...)
	cmd.Dir = d.dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("demo --live: %s %s: %w: %s", strings.Join(d.composeBin, " "), strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// down removes the compose project at the end (unless Keep).
func (d *demo) down() {
	if d.o.Keep {
		return
	}
	cmd := exec.Command(d.composeBin[0], append(append(d.composeBin[1:], "-p", d.res.Project, "-f", d.file), "down", "-v", "--remove-orphans", "--timeout", "5")...)
	cmd.Dir = d.dir
	if out, err := cmd.CombinedOutput(); err != nil {
		d.p.step("cleanup: compose down failed: %v: %s", err, strings.TrimSpace(string(out)))
	} else {
		d.p.step("cleanup: compose project %s down, network %s removed", d.res.Project, d.netName)
	}
}

// writeCompose writes the project's file for the released service's tag.
func (d *demo) writeCompose(tag string) error {
	body := composeFile(tag, d.otlpURL, d.netName, d.hostPort)
	if d.o.TwoServices {
		body = composeFile2(d.caller.Tag, tag, d.otlpURL, d.netName, d.hostPort)
	}
	return os.WriteFile(d.file, []byte(body), 0o644)
}

// composeV1 brings the project up with v1, waits for it to be healthy and
// checks, with one request, that its spans reach the live store. v1 gets no
// deployment marker: the deployer, which writes them, starts after it and
// announces no service it finds already running.
func (d *demo) composeV1(ctx context.Context) error {
	dir, err := os.MkdirTemp("", "agentk-demo-live-")
	if err != nil {
		return err
	}
	d.dir = dir
	d.cleanups = append(d.cleanups, func() {
		if !d.o.Keep {
			_ = os.RemoveAll(dir)
		}
	})
	if d.hostPort, err = harness.FreePort(); err != nil {
		return err
	}
	d.file = filepath.Join(dir, "docker-compose.yml")
	d.cleanups = append(d.cleanups, d.down)
	if err := d.writeCompose(d.v1.Tag); err != nil {
		return err
	}
	if err := d.compose(ctx, "up", "-d"); err != nil {
		return err
	}
	tags := d.v1.Tag
	if d.o.TwoServices {
		tags = d.caller.Tag + " and " + d.v1.Tag
	}
	d.p.step("compose project %s up with %s (file %s, published on 127.0.0.1:%d)", d.res.Project, tags, d.file, d.hostPort)
	if err := waitFor(ctx, 60*time.Second, "v1 healthy", func() bool {
		return runsHealthy(ctx, d.dc, d.res.Project, d.res.Released, d.res.V1ID) &&
			(!d.o.TwoServices || runsHealthy(ctx, d.dc, d.res.Project, Service, d.res.CallerV1ID))
	}); err != nil {
		return err
	}
	url := fmt.Sprintf("http://127.0.0.1:%d/ask", d.hostPort)
	c := &http.Client{Timeout: 2 * time.Second}
	if err := waitFor(ctx, 30*time.Second, "a span of v1 in the live store", func() bool {
		if req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil); err == nil {
			if resp, err := c.Do(req); err == nil {
				_ = resp.Body.Close()
			}
		}
		return hasSpan(d.store, Service) && (!d.o.TwoServices || hasSpan(d.store, Origin))
	}); err != nil {
		_, n, refused := d.store.Stats()
		return fmt.Errorf("%w (spans received %d, OTLP requests refused %d): is traffic from the compose network to its gateway blocked by a firewall?", err, n, refused)
	}
	if d.o.TwoServices {
		d.p.step("shop-api and payment v1 running and healthy; shop-api's /ask calls payment's POST /charge (one trace across both);")
		d.p.note("their spans arrive over OTLP (neither emits a deployment marker of its own, like a user's service)")
		return nil
	}
	d.p.step("v1 running and healthy; its spans arrive over OTLP (it emits no deployment marker of its own, like a user's service)")
	return nil
}

// shipBadRelease starts the traffic, lets v1 serve it for the warm-up, then
// ships v2 exactly as an operator does: the tag changed in the file,
// `compose up -d`.
func (d *demo) shipBadRelease(ctx context.Context) error {
	d.load = startLoad(ctx, fmt.Sprintf("http://127.0.0.1:%d/ask", d.hostPort), d.o.Rate)
	d.cleanups = append(d.cleanups, d.load.stop)
	d.warmFrom = time.Now()
	d.p.step("load loop: %d GET /ask per second on 127.0.0.1:%d; v1 serves it for %s", d.o.Rate, d.hostPort, d.o.Warmup)
	if err := waitUntil(ctx, d.warmFrom.Add(d.o.Warmup)); err != nil {
		return err
	}
	d.warmTo = time.Now()
	d.load.pause(true)
	if err := d.writeCompose(d.v2.Tag); err != nil {
		return err
	}
	rel := d.res.Released
	up := []string{"up", "-d"}
	if d.o.TwoServices {
		// Only payment is released: shop-api's container is not touched.
		up = append(up, "--no-deps", rel)
	}
	d.p.step("operator ships the bad release of %s: image tag changed to %s in %s, `%s %s`", rel, d.v2.Tag, filepath.Base(d.file), strings.Join(d.composeBin, " "), strings.Join(up, " "))
	if err := d.compose(ctx, up...); err != nil {
		return err
	}
	if err := waitFor(ctx, 60*time.Second, "v2 healthy, v2 in the ledger and the deployer's marker of v2 in the live store", func() bool {
		return runsHealthy(ctx, d.dc, d.res.Project, rel, d.res.V2ID) && hasMarker(d.store, rel, "v2") && d.ledgerLen(ctx, rel) == 2
	}); err != nil {
		return err
	}
	d.marker = latestMarker(d.store, rel, "v2")
	d.res.V2Markers = d.store.Spans(func(s incident.Span) bool { return isMarker(s, rel, "v2") })
	if cs, err := serviceContainers(ctx, d.dc, d.res.Project, rel); err == nil && len(cs) == 1 {
		d.res.V2Container = cs[0].ID
	}
	d.p.step("%s v2 running; deployer's ledger of %s: [v1 v2]; the deployer's watcher saw the new image and sent its deployment.marker", rel, rel)
	d.p.note("at %s, Docker's start time of the container (the demo target emits none: agentk writes the markers)", d.marker.Format("15:04:05.000"))
	if d.o.TwoServices {
		c, err := oneContainer(ctx, d.dc, d.res.Project, Service)
		if err != nil {
			return err
		}
		d.res.CallerBefore = c
		d.p.note("%s released nothing: its container %s still runs %s", Service, shortContainer(c.ID), ShortID(c.ImageID))
	}
	return nil
}
