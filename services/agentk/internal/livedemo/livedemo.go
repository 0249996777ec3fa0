// Package livedemo is `agentk demo --live` (what `make demo-live` runs): the
// demo target on Docker Compose, a bad release deployed the way an operator
// does it, the alert fired, a real rollback by the deployer's docker runtime
// and recovery verified from the demo target's own telemetry.
//
// Run goes through its steps in order, one file each: Docker and the compose
// project (docker.go, compose.go), the live telemetry store and its
// backfill (telemetry.go), the pipeline (pipeline.go), the load generator
// (load.go), the alert and its burn-rate maths (alert.go), and following the
// pipeline to the action (follow.go).
package livedemo

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"agentk/contracts"
	"agentk/contracts/incident"
	"agentk/platform/wait"
)

const (
	// Service is the demo target's compose service: the alerted one.
	Service = "shop-api"
	// Origin is the two-service scenario's callee (TwoServices): the
	// service that releases, where shop-api's failures begin.
	Origin           = "payment"
	defaultRepo      = "agentk-demo/shop-api"
	defaultCallee    = "agentk-demo/payment"
	imageTitleLabel  = "org.opencontainers.image.title"
	liveApproverID   = "ULIVEDEMOAPPROVER"
	liveApproverName = "auto-approver"
	liveBotToken     = "xoxb-live-demo-not-a-real-token"
	// The alert rule of deploy/signoz/alert-rule.json: burn rate =
	// (errors / requests) / (1 − 0.99) over 5 minutes of server spans,
	// critical above 14.4.
	liveSLOBudget     = 0.01
	liveBurnCritical  = 14.4
	liveRuleWindow    = 5 * time.Minute
	liveMinV2Requests = 20
)

// Options configure one live demo.
type Options struct {
	// Repo is the demo target's image repository (default agentk-demo/shop-api).
	Repo string
	// TwoServices is the second act (issue 33, DESIGN.md rule 17): shop-api
	// calls payment; payment is released v1 → v2, shop-api's SLO burns and
	// is alerted, the gate denies shop-api's rollback and allows the derived
	// decision about payment, and the deployer rolls payment back.
	TwoServices bool
	// CalleeRepo is payment's image repository (default agentk-demo/payment).
	CalleeRepo string
	// Build builds Repo:v1 and :v2 when they are missing (make images builds them).
	Build bool
	// Keep leaves the compose project (and its network) running at the end.
	Keep bool
	// Stabilise is the deployer's wait before its recovery check (default 10 s).
	Stabilise time.Duration
	// Rate is the load loop's requests per second (default 5).
	Rate int
	// Warmup is how long v1 serves traffic before v2 is deployed (default 15 s).
	Warmup time.Duration
	// Timeout bounds the run once the images are there (default 5 min):
	// building them (Build) takes what the machine takes, bounded by the
	// caller's context alone.
	Timeout time.Duration
	// Interactive, when set, is asked instead of the auto-approver.
	Interactive func(question string) bool
	Progress    io.Writer
	Logger      *slog.Logger
}

// Result is what the live demo measured.
type Result struct {
	Project string
	// Released is the service shipped v1 → v2 and rolled back: Service, or
	// Origin with TwoServices. V1ID and V2ID are its images.
	Released   string
	V1ID, V2ID string
	// Decision is the decision acted on: with TwoServices the gate's
	// derived decision about Origin; AlertedDecision is then the gate's
	// decision about the alerted Service (a denial).
	Decision        contracts.DecisionV1
	AlertedDecision contracts.DecisionV1
	Action          contracts.ActionV1
	// Actions are every action the deployer published in the run, by
	// decision id.
	Actions          map[string]contracts.ActionV1
	FinalImage       string // the released service's container image id, from the Docker API, at the end
	FinalVersion     string
	AlertAt          time.Time
	DecisionAt       time.Time
	ContainerOnV1At  time.Time
	ActionAt         time.Time
	AlertBurnRate    float64
	BackfilledSpans  int
	LiveSpans        int
	LoadSent, LoadOK int64
	Stabilise        time.Duration
	// V2Markers are the deployment.marker spans of v2 in the live store
	// (the deployer's watcher sends one; the demo target none), and
	// V2Container the container Docker started v2 in.
	V2Markers   []incident.Span
	V2Container string
	// Caller is shop-api's container with TwoServices, before the alert and
	// at the end (from the Docker API): it must be untouched.
	CallerBefore, CallerAfter Container
	CallerV1ID                string
}

// Container is one container as the Docker API reports it.
type Container struct{ ID, ImageID string }

// progress lines, stamped with the time since the start.
type progress struct {
	w     io.Writer
	start time.Time
	mu    sync.Mutex
}

func (p *progress) step(format string, a ...any) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "  • [%5.1fs] %s\n", time.Since(p.start).Seconds(), fmt.Sprintf(format, a...))
}

func (p *progress) note(format string, a ...any) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "            %s\n", fmt.Sprintf(format, a...))
}

// ShortID shortens an image id to sha256: and 12 hex digits.
func ShortID(id string) string {
	id = strings.TrimPrefix(id, "sha256:")
	if len(id) > 12 {
		return "sha256:" + id[:12]
	}
	return id
}

func withDefaults(o Options) Options {
	if o.Repo == "" {
		o.Repo = defaultRepo
	}
	if o.CalleeRepo == "" {
		o.CalleeRepo = defaultCallee
	}
	if o.Stabilise == 0 {
		o.Stabilise = 10 * time.Second
	}
	if o.Rate == 0 {
		o.Rate = 5
	}
	if o.Warmup == 0 {
		o.Warmup = 15 * time.Second
	}
	if o.Timeout == 0 {
		o.Timeout = 5 * time.Minute
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// Run runs the live demo once and cleans up after itself (unless Keep).
func Run(ctx context.Context, o Options) (Result, error) {
	d := &demo{o: withDefaults(o)}
	d.p = &progress{w: d.o.Progress, start: time.Now()}
	d.res.Stabilise = d.o.Stabilise
	d.res.Released = Service
	if d.o.TwoServices {
		d.res.Released = Origin
	}
	d.res.Actions = map[string]contracts.ActionV1{}
	defer d.close()
	// The images take what the machine takes to build: only ctx bounds
	// them. The demo's own Timeout starts once they are there.
	for _, step := range []func(context.Context) error{d.connectDocker, d.images} {
		if err := step(ctx); err != nil {
			return d.res, err
		}
	}
	ctx, cancel := context.WithTimeout(ctx, d.o.Timeout)
	defer cancel()
	for _, step := range []func(context.Context) error{
		d.network, d.telemetryStore, d.composeV1, d.pipeline,
		d.shipBadRelease, d.shortcuts, d.fireAlert, d.follow, d.finish,
	} {
		if err := step(ctx); err != nil {
			return d.res, err
		}
	}
	return d.res, nil
}

// close releases what the steps opened: first the clients and the services
// (closers), then what the demo made outside this process (cleanups: the
// load loop, the compose project, its files, the telemetry store, the
// network), each in the reverse order of its making.
func (d *demo) close() {
	for i := len(d.closers) - 1; i >= 0; i-- {
		d.closers[i]()
	}
	for i := len(d.cleanups) - 1; i >= 0; i-- {
		d.cleanups[i]()
	}
}

// finish reads the end state from the Docker API and the counters.
func (d *demo) finish(ctx context.Context) error {
	p, res, a := d.p, &d.res, d.res.Action
	if res.ContainerOnV1At.IsZero() {
		res.ContainerOnV1At = res.ActionAt
	}
	p.step("deployer: %s %s → %s, container verified %v", a.Outcome, a.FromImage, a.ToImage, a.ContainerVerified)
	p.note("command: %s", strings.Join(a.Command, " "))
	rec := "null"
	if a.Recovered != nil {
		rec = fmt.Sprint(*a.Recovered)
	}
	p.step("recovery (service_overview through the sandbox, over the live store, after %s): recovered=%s%s", d.o.Stabilise, rec, orEmpty(a.Reason, "; "))
	var err error
	res.FinalImage, res.FinalVersion, err = serviceImage(ctx, d.dc, res.Project, res.Released)
	if err != nil {
		return err
	}
	p.step("Docker API: %s runs image %s (version label %s) — v1's image id: %v", res.Released, ShortID(res.FinalImage), res.FinalVersion, res.FinalImage == res.V1ID)
	if d.o.TwoServices {
		if res.CallerAfter, err = oneContainer(ctx, d.dc, res.Project, Service); err != nil {
			return err
		}
		p.step("Docker API: %s untouched — container %s on image %s, before the alert %s on %s", Service,
			shortContainer(res.CallerAfter.ID), ShortID(res.CallerAfter.ImageID), shortContainer(res.CallerBefore.ID), ShortID(res.CallerBefore.ImageID))
		if a, ok := res.Actions[res.AlertedDecision.DecisionID]; ok {
			p.note("the deployer acted on %s's own decision: %s", Service, a.Outcome)
		} else {
			p.note("the deployer published no action on %s's own decision (denied by the gate)", Service)
		}
	}
	_, res.LiveSpans, _ = d.store.Stats()
	res.LiveSpans -= res.BackfilledSpans
	res.LoadSent, res.LoadOK = d.load.sent.Load(), d.load.ok.Load()
	if d.o.Keep {
		composeCmd := strings.Join(d.composeBin, " ")
		p.step("--keep: compose project %s left running (network %s, file %s); remove with", res.Project, d.netName, d.file)
		p.note("%s -p %s -f %s down -v && docker network rm %s", composeCmd, res.Project, d.file, d.netName)
		p.note("(its OTLP export now fails: the live store ends with this process)")
	}
	return nil
}

func shortContainer(id string) string { return clip(id, 13) }

func orEmpty(s, prefix string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}

// clip shortens s to n runes.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// waitFor polls cond every 200 ms until it holds or within passes.
func waitFor(ctx context.Context, within time.Duration, what string, cond func() bool) error {
	ctx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			return fmt.Errorf("demo --live: timed out after %s waiting for %s", within, what)
		case <-t.C:
		}
	}
	return nil
}

// waitUntil returns at t, or when ctx ends.
func waitUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return nil
	}
	return wait.Sleep(ctx, d)
}
