package cli

// demolive.go is `agentk demo --live` (what `make demo-live` runs): the demo
// target on Docker Compose, a bad release deployed the way an operator does
// it, the alert fired, a real rollback by the deployer's docker runtime and
// recovery verified from the demo target's own telemetry.

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"agentk/cmd/agentk/livesignoz"
	"agentk/cmd/agentk/stack"
	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/contracts/incident"
	"agentk/platform/bus"
	"agentk/platform/fabric"
	"agentk/platform/service"
	"agentk/platform/topology"
	"agentk/services/bridge/fakeslack"
	"agentk/services/deployer/demotarget"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/client"
	"github.com/nats-io/nats.go"
)

const (
	liveService      = "shop-api"
	liveRepo         = "agentk-demo/shop-api"
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

// liveOptions configure one live demo.
type liveOptions struct {
	// Repo is the demo target's image repository (default agentk-demo/shop-api).
	Repo string
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
	// Timeout bounds the whole run (default 5 min).
	Timeout time.Duration
	// Interactive, when set, is asked instead of the auto-approver.
	Interactive func(question string) bool
	Progress    io.Writer
	Logger      *slog.Logger
}

// liveResult is what the live demo measured.
type liveResult struct {
	Project          string
	V1ID, V2ID       string
	Decision         contracts.DecisionV1
	Action           contracts.ActionV1
	FinalImage       string // the service's container image id, from the Docker API, at the end
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
}

// progress lines, stamped with the time since the start.
type liveProgress struct {
	w     io.Writer
	start time.Time
	mu    sync.Mutex
}

func (p *liveProgress) step(format string, a ...any) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "  • [%5.1fs] %s\n", time.Since(p.start).Seconds(), fmt.Sprintf(format, a...))
}

func (p *liveProgress) note(format string, a ...any) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "            %s\n", fmt.Sprintf(format, a...))
}

func cmdDemoLive(ctx context.Context, c *cli, interactive func(string) bool, keep bool, verbose bool) error {
	fmt.Fprintln(c.stdout, "agentk demo --live — the demo target on Docker Compose, a bad release, the alert, a real rollback, recovery verified.")
	fmt.Fprintln(c.stdout, "Every agentk service runs in this process over an embedded NATS; the deployer's runtime is docker: it runs")
	fmt.Fprintln(c.stdout, "`docker-compose up -d --force-recreate` itself. Telemetry goes to a LOCAL STAND-IN FOR SIGNOZ, fed by the demo")
	fmt.Fprintln(c.stdout, "target's real OTLP; the demo computes the alert itself (there is no SigNoz rule engine here).")
	if interactive == nil {
		fmt.Fprintln(c.stdout, "Approvals come from an AUTO-APPROVER that clicks Approve in a local fake Slack (run with --interactive to answer yourself).")
	}
	fmt.Fprintln(c.stdout)
	res, err := runLive(ctx, liveOptions{Build: true, Keep: keep, Interactive: interactive, Progress: c.stdout, Logger: logger(c, verbose)})
	if err != nil {
		return err
	}
	recovered := "unknown"
	if res.Action.Recovered != nil {
		recovered = fmt.Sprint(*res.Action.Recovered)
	}
	fmt.Fprintf(c.stdout, "\nResult: %s rolled back %s → %s; the container now runs %s (%s); recovered: %s.\n",
		liveService, res.Action.FromImage, res.Action.ToImage, shortID(res.FinalImage), res.FinalVersion, recovered)
	fmt.Fprintf(c.stdout, "Figures: alert → gate decision %s; alert → container on v1 %s; alert → verified recovery %s (of which %s is the stabilisation window);\n",
		secs(res.DecisionAt.Sub(res.AlertAt)), secs(res.ContainerOnV1At.Sub(res.AlertAt)), secs(res.ActionAt.Sub(res.AlertAt)), secs(res.Stabilise))
	fmt.Fprintf(c.stdout, "         approval → container verified %d ms (compose %d ms, Docker verification %d ms); %d live spans received, %d backfilled; load %d sent, %d answered 2xx.\n",
		res.Action.TotalMs, res.Action.ActionMs, res.Action.VerifyMs, res.LiveSpans, res.BackfilledSpans, res.LoadSent, res.LoadOK)
	return nil
}

func secs(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }

func shortID(id string) string {
	id = strings.TrimPrefix(id, "sha256:")
	if len(id) > 12 {
		return "sha256:" + id[:12]
	}
	return id
}

func liveDefaults(o liveOptions) liveOptions {
	if o.Repo == "" {
		o.Repo = liveRepo
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

// runLive runs the live demo once and cleans up after itself (unless Keep).
func runLive(ctx context.Context, o liveOptions) (res liveResult, err error) {
	o = liveDefaults(o)
	p := &liveProgress{w: o.Progress, start: time.Now()}
	res.Stabilise = o.Stabilise
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	var cleanups []func()
	defer func() {
		for i := len(cleanups) - 1; i >= 0; i-- {
			cleanups[i]()
		}
	}()

	// Docker and compose.
	dc, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		return res, fmt.Errorf("demo --live: docker client: %w", err)
	}
	defer func() { _ = dc.Close() }()
	if _, err := dc.Ping(ctx); err != nil {
		return res, fmt.Errorf("demo --live needs a Docker engine: %w", err)
	}
	composeBin, err := findCompose(ctx)
	if err != nil {
		return res, err
	}

	// 1. The two releases.
	v1, v2 := demotarget.V1(o.Repo), demotarget.V2(o.Repo)
	for _, img := range []*demotarget.Image{&v1, &v2} {
		id, err := imageID(ctx, dc, img.Tag)
		if err != nil && o.Build {
			p.step("building %s (demotarget.Build: a static binary FROM scratch, nothing pulled)", img.Tag)
			id, err = demotarget.Build(ctx, *img)
		}
		if err != nil {
			return res, fmt.Errorf("demo --live: image %s: %w (run `make images`)", img.Tag, err)
		}
		if img.Version == "v1" {
			res.V1ID = id
		} else {
			res.V2ID = id
		}
	}
	p.step("images: %s = %s, %s = %s (v2 is the bad release: every second /ask fails)", v1.Tag, shortID(res.V1ID), v2.Tag, shortID(res.V2ID))

	// 2. The compose project's network, created first so that the live
	// store can listen on its gateway: reachable from the project's
	// containers, not from the outside.
	stamp := time.Now().UnixNano()
	res.Project = fmt.Sprintf("agentkdemolive%d", stamp)
	netName := res.Project + "_net"
	nc, err := dc.NetworkCreate(ctx, netName, network.CreateOptions{Driver: "bridge", Labels: map[string]string{"agentk.demo": "live"}})
	if err != nil {
		return res, fmt.Errorf("demo --live: network: %w", err)
	}
	cleanups = append(cleanups, func() {
		if o.Keep {
			return
		}
		rctx, rcancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer rcancel()
		_ = dc.NetworkRemove(rctx, nc.ID)
	})
	ni, err := dc.NetworkInspect(ctx, nc.ID, network.InspectOptions{})
	if err != nil || len(ni.IPAM.Config) == 0 {
		return res, fmt.Errorf("demo --live: network %s has no address: %v", netName, err)
	}
	gw := net.ParseIP(ni.IPAM.Config[0].Gateway)
	_, subnet, perr := net.ParseCIDR(ni.IPAM.Config[0].Subnet)
	if gw == nil || perr != nil {
		return res, fmt.Errorf("demo --live: network %s: gateway %q subnet %q", netName, ni.IPAM.Config[0].Gateway, ni.IPAM.Config[0].Subnet)
	}

	// 3. The live store: OTLP in on the gateway (only from the project's
	// subnet), SigNoz's query API out on loopback (for the sandbox only).
	apiKey := "live-" + randHexN(12)
	store := livesignoz.New(apiKey, subnet.Contains)
	otlpL, err := net.Listen("tcp", net.JoinHostPort(gw.String(), "0"))
	if err != nil {
		return res, fmt.Errorf("demo --live: listen on the compose network's gateway %s: %w", gw, err)
	}
	otlpSrv := &http.Server{Handler: store.OTLP(), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = otlpSrv.Serve(otlpL) }()
	cleanups = append(cleanups, func() { _ = otlpSrv.Close() })
	sigURL, stopSig, err := serveLoopback(store.Query())
	if err != nil {
		return res, err
	}
	cleanups = append(cleanups, stopSig)
	otlpURL := "http://" + otlpL.Addr().String()
	p.step("live telemetry store: a LOCAL STAND-IN FOR SIGNOZ, fed by the demo target's real OTLP")
	p.note("OTLP/HTTP in at %s (the compose network's gateway; only %s may send), SigNoz's query API out at %s", otlpURL, subnet, sigURL)

	// 4. The compose project, v1 first.
	dir, err := os.MkdirTemp("", "agentk-demo-live-")
	if err != nil {
		return res, err
	}
	cleanups = append(cleanups, func() {
		if !o.Keep {
			_ = os.RemoveAll(dir)
		}
	})
	hostPort, err := liveFreePort()
	if err != nil {
		return res, err
	}
	file := filepath.Join(dir, "docker-compose.yml")
	compose := func(args ...string) error {
		cmd := exec.CommandContext(ctx, composeBin[0], append(append(composeBin[1:], "-p", res.Project, "-f", file), args...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("demo --live: %s %s: %w: %s", strings.Join(composeBin, " "), strings.Join(args, " "), err, strings.TrimSpace(string(out)))
		}
		return nil
	}
	cleanups = append(cleanups, func() {
		if o.Keep {
			return
		}
		cmd := exec.Command(composeBin[0], append(append(composeBin[1:], "-p", res.Project, "-f", file), "down", "-v", "--remove-orphans", "--timeout", "5")...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			p.step("cleanup: compose down failed: %v: %s", err, strings.TrimSpace(string(out)))
		} else {
			p.step("cleanup: compose project %s down, network %s removed", res.Project, netName)
		}
	})
	writeCompose := func(tag string) error {
		return os.WriteFile(file, []byte(liveComposeFile(tag, otlpURL, netName, hostPort)), 0o644)
	}
	if err := writeCompose(v1.Tag); err != nil {
		return res, err
	}
	if err := compose("up", "-d"); err != nil {
		return res, err
	}
	p.step("compose project %s up with %s (file %s, published on 127.0.0.1:%d)", res.Project, v1.Tag, file, hostPort)
	if err := waitFor(ctx, 60*time.Second, "v1 healthy and its deployment.marker in the live store", func() bool {
		return runsHealthy(ctx, dc, res.Project, res.V1ID) && hasMarker(store, "v1")
	}); err != nil {
		_, n, refused := store.Stats()
		return res, fmt.Errorf("%w (spans received %d, OTLP requests refused %d): is traffic from the compose network to its gateway blocked by a firewall?", err, n, refused)
	}
	p.step("v1 running and healthy; its deployment.marker span arrived over OTLP")

	// 5. The pipeline: every service, the deployer with the docker runtime.
	slack := fakeslack.New(liveBotToken)
	defer slack.Close()
	secret := randHexN(16)
	bridgeAddr, err := freeAddr()
	if err != nil {
		return res, err
	}
	ingestAddr, err := freeAddr()
	if err != nil {
		return res, err
	}
	ingestToken := randHexN(16)
	state := filepath.Join(dir, "deployer-state")
	if err := os.MkdirAll(state, 0o700); err != nil {
		return res, err
	}
	env := map[string]string{
		"AGENTK_OTEL_DISABLED":             "1",
		"AGENTK_SIGNOZ_URL":                sigURL,
		"AGENTK_SIGNOZ_BASE_URL":           sigURL,
		"AGENTK_SIGNOZ_API_KEY":            apiKey,
		"AGENTK_INVESTIGATOR":              "rules",
		"AGENTK_BRIDGE_ADDR":               bridgeAddr,
		"AGENTK_SLACK_API_URL":             slack.APIURL(),
		"AGENTK_SLACK_BOT_TOKEN":           liveBotToken,
		"AGENTK_SLACK_SIGNING_SECRET":      secret,
		"AGENTK_SLACK_CHANNEL":             "#agentk-demo-live",
		"AGENTK_SLACK_RESPONSE_URL_PREFIX": slack.ResponseURLPrefix(),
		"AGENTK_APPROVERS":                 "slack:" + liveApproverID + "=" + liveApproverName,
		"AGENTK_SANDBOX_SERVICES":          liveService,
		"AGENTK_DEPLOYER_SERVICES":         liveService,
		"AGENTK_DEPLOYER_RUNTIME":          "docker",
		"AGENTK_COMPOSE_PROJECT":           res.Project,
		"AGENTK_COMPOSE_FILE":              file,
		"AGENTK_DEPLOYER_STATE_DIR":        state,
		"AGENTK_DEPLOYER_STABILISE":        o.Stabilise.String(),
		"AGENTK_DEPLOYER_RECOVERY":         "sandbox",
		"AGENTK_INGEST_ADDR":               ingestAddr,
		"AGENTK_INGEST_TOKEN":              ingestToken,
		"PATH":                             os.Getenv("PATH"),
		"HOME":                             os.Getenv("HOME"),
		"DOCKER_HOST":                      os.Getenv("DOCKER_HOST"),
		"DOCKER_CONFIG":                    os.Getenv("DOCKER_CONFIG"),
		"DOCKER_CERT_PATH":                 os.Getenv("DOCKER_CERT_PATH"),
		"DOCKER_TLS_VERIFY":                os.Getenv("DOCKER_TLS_VERIFY"),
	}
	now := func() time.Time { return time.Now().UTC() }
	f, err := fabric.StartEmbedded(ctx, fabric.Options{DataDir: filepath.Join(dir, "nats"), Logger: o.Logger})
	if err != nil {
		return res, err
	}
	defer func() { _ = f.Close() }()
	admin, err := f.Admin(ctx)
	if err != nil {
		return res, err
	}
	defer func() { _ = admin.Close() }()
	msgs := make(chan *nats.Msg, 4096)
	sub, err := admin.NATS().ChanSubscribe("agentk.>", msgs)
	if err != nil {
		return res, err
	}
	defer func() { _ = sub.Unsubscribe() }()
	if err := admin.NATS().Flush(); err != nil {
		return res, err
	}
	running, err := stack.Start(ctx, nil, func(ctx context.Context, role string) (service.Deps, error) {
		return f.Deps(ctx, role, now, func(k string) string { return env[k] })
	}, o.Logger, 30*time.Second)
	if err != nil {
		return res, err
	}
	defer func() {
		if serr := running.Stop(); serr != nil {
			o.Logger.Warn("services stopped with errors", "err", serr)
		}
	}()
	p.step("7 services running on an embedded NATS (rules investigator, deployer runtime docker, recovery check through the sandbox)")
	if err := waitFor(ctx, 30*time.Second, "v1 in the deployer's ledger", func() bool { return ledgerLen(ctx, admin, f.Keyring(), now) == 1 }); err != nil {
		return res, err
	}
	p.step("deployer's release ledger (built from the Docker API): [v1]")

	// 6. Traffic, then the bad release, exactly as an operator ships it.
	load := startLoad(ctx, fmt.Sprintf("http://127.0.0.1:%d/ask", hostPort), o.Rate)
	cleanups = append(cleanups, load.stop)
	warmFrom := time.Now()
	p.step("load loop: %d GET /ask per second on 127.0.0.1:%d; v1 serves it for %s", o.Rate, hostPort, o.Warmup)
	if err := waitUntil(ctx, warmFrom.Add(o.Warmup)); err != nil {
		return res, err
	}
	warmTo := time.Now()
	load.pause(true)
	if err := writeCompose(v2.Tag); err != nil {
		return res, err
	}
	p.step("operator ships the bad release: image tag changed to %s in %s, `%s up -d`", v2.Tag, filepath.Base(file), strings.Join(composeBin, " "))
	if err := compose("up", "-d"); err != nil {
		return res, err
	}
	if err := waitFor(ctx, 60*time.Second, "v2 healthy, its marker in the live store and v2 in the ledger", func() bool {
		return runsHealthy(ctx, dc, res.Project, res.V2ID) && hasMarker(store, "v2") && ledgerLen(ctx, admin, f.Keyring(), now) == 2
	}); err != nil {
		return res, err
	}
	marker := latestMarker(store, "v2")
	p.step("v2 running; its deployment.marker at %s arrived; deployer's ledger: [v1 v2]", marker.Format("15:04:05.000"))

	// The live store has no past, and the sandbox measures the onset
	// against a baseline one to two hours before the alert.
	res.BackfilledSpans = backfill(store, warmFrom, warmTo, time.Now())
	p.step("DEMO SHORTCUT — history: the onset detector compares each minute with a baseline 1–2 h before the alert, which a")
	p.note("fresh store cannot have; %d copies of v1's real spans from the warm-up were laid back over [now−2h05m, now−55m],", res.BackfilledSpans)
	p.note("new ids, resource agentk.demo.backfill=true. Nothing after the warm-up is copied or invented.")
	boundary := marker.Truncate(time.Minute).Add(time.Minute + time.Second)
	p.step("DEMO SHORTCUT — timing: the onset is measured in whole minutes; load resumes at %s so the deploy's own", boundary.Format("15:04:05"))
	p.note("minute holds no v2 errors and the marker precedes the onset (in production the marker precedes the alert by minutes)")
	if err := waitUntil(ctx, boundary); err != nil {
		return res, err
	}
	load.pause(false)
	v2From := time.Now()

	// 7. The alert, as SigNoz's rule would fire it, computed by the demo.
	var burn float64
	if err := waitFor(ctx, 90*time.Second, "v2's errors to burn the budget", func() bool {
		var reqs int
		burn, reqs = burnRate(store, time.Now())
		return burn >= liveBurnCritical && serverSpans(store, v2From) >= liveMinV2Requests && reqs > 0
	}); err != nil {
		return res, err
	}
	res.AlertBurnRate = math.Round(burn*10) / 10
	p.step("v2's errors show in the live store: burn rate %.1f over the last %s (≥ %.1f: critical)", res.AlertBurnRate, liveRuleWindow, liveBurnCritical)
	p.note("the DEMO COMPUTES THE ALERT ITSELF — there is no SigNoz rule engine here; deploy/signoz/alert-rule.json is the real rule")
	alert := liveAlert(res.Project, res.AlertBurnRate, time.Now().UTC().Truncate(time.Second))
	res.AlertAt = time.Now()
	if err := postAlert(ctx, "http://"+ingestAddr+"/v1/alerts", ingestToken, alert); err != nil {
		return res, err
	}
	p.step("alert posted to the ingester (Alertmanager-format webhook, as SigNoz posts it)")

	// 8. Follow the pipeline to the action.
	kr := f.Keyring()
	var decision *contracts.DecisionV1
	var clickErr chan error
	var v1Seen chan time.Time
	for res.Action.ActionID == "" {
		select {
		case <-ctx.Done():
			return res, fmt.Errorf("demo --live: %w before the action arrived", ctx.Err())
		case err := <-clickErr:
			if err != nil {
				return res, err
			}
			clickErr = nil
		case at := <-v1Seen:
			res.ContainerOnV1At = at
			v1Seen = nil
			p.step("Docker API: %s's container now runs v1's image %s; the deployer waits its %s stabilisation window", liveService, shortID(res.V1ID), o.Stabilise)
			p.note("(DEMO: shortened from the 1 m default), then asks the sandbox for service_overview over the live store")
		case m := <-msgs:
			role, ok := liveProducers[m.Subject]
			if !ok {
				continue
			}
			switch m.Subject {
			case contracts.SubjectAlert:
				var a contracts.AlertV1
				if err := openAs(kr, m, role, now, &a); err != nil {
					return res, err
				}
				p.step("alert %s: service %s, burn rate %g (%s), incident %s", a.AlertName, a.Service, a.BurnRate, a.BurnRateSource, a.IncidentID)
			case contracts.SubjectReport:
				var r contracts.ReportV1
				if err := openAs(kr, m, role, now, &r); err != nil {
					return res, err
				}
				p.step("investigation by %s: %d claims, %d tool calls, %d evidence records (from the live store), completed=%v",
					r.Investigator, len(r.Claims), r.ToolCalls, len(r.Evidence), r.Completed)
			case contracts.SubjectReview:
				var r contracts.ReviewV1
				if err := openAs(kr, m, role, now, &r); err != nil {
					return res, err
				}
				p.step("review: %d claims kept, %d dropped", len(r.Kept), len(r.Dropped))
				for _, c := range r.Kept {
					p.note("kept    %-20s %.2f  %s", c.Class, c.Confidence, clip(c.Statement, 90))
				}
			case contracts.SubjectDecision:
				var d contracts.DecisionV1
				if err := openAs(kr, m, role, now, &d); err != nil {
					return res, err
				}
				if decision != nil {
					continue
				}
				decision, res.Decision, res.DecisionAt = &d, d, time.Now()
				p.step("gate: %s (decision %s)", strings.ToUpper(d.Verdict), d.DecisionID)
				for _, c := range d.Checks {
					mark := "pass"
					if !c.Passed {
						mark = "FAIL"
					}
					p.note("%s %-18s %s", mark, c.Name, clip(c.Reason, 100))
				}
				if d.Verdict != contracts.VerdictAllow {
					return res, fmt.Errorf("demo --live: the gate denied the rollback (%s): %s", strings.Join(d.FailedChecks, ", "), d.NextStep)
				}
				clicked, seen, v1, project := make(chan error, 1), make(chan time.Time, 1), res.V1ID, res.Project
				clickErr, v1Seen = clicked, seen
				go func() {
					clicked <- liveApprove(ctx, slack, d, "http://"+bridgeAddr+"/slack/interactions", secret, now, o.Interactive, p)
				}()
				// Watch the engine, as an operator would, for the container on v1.
				go func() {
					if waitFor(ctx, 3*time.Minute, "", func() bool { return runsImage(ctx, dc, project, v1) }) == nil {
						seen <- time.Now()
					}
				}()
			case contracts.SubjectApproval:
				var a contracts.ApprovalV1
				if err := openAs(kr, m, role, now, &a); err != nil {
					return res, err
				}
				p.step("approval: %s by %s via %s (signed by the bridge, bound to digest %s…)", a.Answer, a.Approver, a.Channel, a.DecisionDigest[:12])
				if a.Answer != contracts.AnswerApprove {
					return res, fmt.Errorf("demo --live: the rollback was denied by %s", a.Approver)
				}
			case contracts.SubjectAction:
				var a contracts.ActionV1
				if err := openAs(kr, m, role, now, &a); err != nil {
					return res, err
				}
				if decision == nil || a.DecisionID != decision.DecisionID {
					continue
				}
				res.Action, res.ActionAt = a, time.Now()
			}
		}
	}
	a := res.Action
	if res.ContainerOnV1At.IsZero() {
		res.ContainerOnV1At = res.ActionAt
	}
	p.step("deployer: %s %s → %s, container verified %v", a.Outcome, a.FromImage, a.ToImage, a.ContainerVerified)
	p.note("command: %s", strings.Join(a.Command, " "))
	rec := "null"
	if a.Recovered != nil {
		rec = fmt.Sprint(*a.Recovered)
	}
	p.step("recovery (service_overview through the sandbox, over the live store, after %s): recovered=%s%s", o.Stabilise, rec, orEmpty(a.Reason, "; "))
	res.FinalImage, res.FinalVersion, err = serviceImage(ctx, dc, res.Project)
	if err != nil {
		return res, err
	}
	p.step("Docker API: %s runs image %s (version label %s) — v1's image id: %v", liveService, shortID(res.FinalImage), res.FinalVersion, res.FinalImage == res.V1ID)
	_, res.LiveSpans, _ = store.Stats()
	res.LiveSpans -= res.BackfilledSpans
	res.LoadSent, res.LoadOK = load.sent.Load(), load.ok.Load()
	if o.Keep {
		p.step("--keep: compose project %s left running (network %s, file %s); remove with", res.Project, netName, file)
		p.note("%s -p %s -f %s down -v && docker network rm %s", strings.Join(composeBin, " "), res.Project, file, netName)
		p.note("(its OTLP export now fails: the live store ends with this process)")
	}
	return res, nil
}

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

// liveComposeFile is the demo project: shop-api on the demo's own network,
// exporting OTLP to the live store, published on loopback only.
func liveComposeFile(image, otlpURL, netName string, hostPort int) string {
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

func serviceContainers(ctx context.Context, dc *client.Client, project string) ([]container.Summary, error) {
	return dc.ContainerList(ctx, container.ListOptions{Filters: filters.NewArgs(
		filters.Arg("label", "com.docker.compose.project="+project),
		filters.Arg("label", "com.docker.compose.service="+liveService))})
}

// runsImage reports whether every running container of the service runs image id.
func runsImage(ctx context.Context, dc *client.Client, project, id string) bool {
	cs, err := serviceContainers(ctx, dc, project)
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

func runsHealthy(ctx context.Context, dc *client.Client, project, id string) bool {
	cs, err := serviceContainers(ctx, dc, project)
	if err != nil || len(cs) != 1 || cs[0].ImageID != id {
		return false
	}
	in, err := dc.ContainerInspect(ctx, cs[0].ID)
	return err == nil && in.State != nil && in.State.Running && (in.State.Health == nil || in.State.Health.Status == "healthy")
}

// serviceImage is the service's one container's image id and version label, from the Docker API.
func serviceImage(ctx context.Context, dc *client.Client, project string) (id, version string, err error) {
	cs, err := serviceContainers(ctx, dc, project)
	if err != nil {
		return "", "", err
	}
	if len(cs) != 1 {
		return "", "", fmt.Errorf("demo --live: %d running containers of %s", len(cs), liveService)
	}
	in, err := dc.ContainerInspect(ctx, cs[0].ID)
	if err != nil {
		return "", "", err
	}
	if in.Config != nil {
		version = in.Config.Labels[demotarget.VersionLabel]
	}
	return in.Image, version, nil
}

func isMarker(s incident.Span, version string) bool {
	var v string
	_ = json.Unmarshal(s.Attributes["deployment.version"], &v)
	return s.Name == "deployment.marker" && s.Service() == liveService && v == version && s.Resource["agentk.demo.backfill"] == ""
}

func hasMarker(st *livesignoz.Store, version string) bool {
	return len(st.Spans(func(s incident.Span) bool { return isMarker(s, version) })) > 0
}

func latestMarker(st *livesignoz.Store, version string) time.Time {
	var at time.Time
	for _, s := range st.Spans(func(s incident.Span) bool { return isMarker(s, version) }) {
		if s.Timestamp.After(at) {
			at = s.Timestamp
		}
	}
	return at
}

// burnRate is the alert rule's value: (errors / requests) / (1 − SLO) over
// the server spans of the service in the rule's window before now.
func burnRate(st *livesignoz.Store, now time.Time) (float64, int) {
	var reqs, errs int
	for _, s := range st.Spans(func(s incident.Span) bool {
		return s.Service() == liveService && s.Kind == 2 && !s.Timestamp.Before(now.Add(-liveRuleWindow)) && !s.Timestamp.After(now)
	}) {
		reqs++
		if s.HasError {
			errs++
		}
	}
	if reqs == 0 {
		return 0, 0
	}
	return float64(errs) / float64(reqs) / liveSLOBudget, reqs
}

func serverSpans(st *livesignoz.Store, from time.Time) int {
	return len(st.Spans(func(s incident.Span) bool {
		return s.Service() == liveService && s.Kind == 2 && !s.Timestamp.Before(from)
	}))
}

// backfill lays copies of the real spans received in [from, to) (markers
// excepted) back over [now−2h05m, now−55m], tile after tile, with new ids
// and the resource attribute agentk.demo.backfill=true. It returns how many.
func backfill(st *livesignoz.Store, from, to, now time.Time) int {
	seed := st.Spans(func(s incident.Span) bool {
		return s.Service() == liveService && s.Name != "deployment.marker" && !s.Timestamp.Before(from) && s.Timestamp.Before(to)
	})
	w := to.Sub(from)
	if len(seed) == 0 || w < time.Second {
		return 0
	}
	lo, hi := now.Add(-2*time.Hour-5*time.Minute), now.Add(-55*time.Minute)
	newID := func(tile int, id string, n int) string {
		if id == "" {
			return ""
		}
		h := sha256.Sum256([]byte(fmt.Sprintf("%d/%s", tile, id)))
		return hex.EncodeToString(h[:n])
	}
	var out []incident.Span
	for tile, start := 0, lo; start.Before(hi); tile, start = tile+1, start.Add(w) {
		for _, s := range seed {
			c := s
			c.Timestamp = start.Add(s.Timestamp.Sub(from))
			if !c.Timestamp.Before(hi) {
				continue
			}
			c.TraceID, c.SpanID, c.ParentSpanID = newID(tile, s.TraceID, 16), newID(tile, s.SpanID, 8), newID(tile, s.ParentSpanID, 8)
			c.Resource = map[string]string{"agentk.demo.backfill": "true"}
			for k, v := range s.Resource {
				c.Resource[k] = v
			}
			out = append(out, c)
		}
	}
	st.Add(out...)
	return len(out)
}

// liveAlert is the webhook SigNoz's alert rule (deploy/signoz/alert-rule.json) posts.
func liveAlert(project string, burn float64, startsAt time.Time) []byte {
	value := fmt.Sprintf("%.1f", burn)
	ann := map[string]string{
		"burn_rate":   value,
		"value":       value,
		"threshold":   fmt.Sprint(liveBurnCritical),
		"summary":     liveService + ": error budget burn",
		"description": "The SLO error budget of " + liveService + " is burning faster than allowed. (Computed by agentk demo --live from the live store: no SigNoz rule engine here.)",
	}
	labels := map[string]string{
		"alertname":      liveService + " error budget burn",
		"ruleId":         project,
		"service.name":   liveService,
		"severity":       "critical",
		"threshold.name": "critical",
	}
	body, _ := json.Marshal(map[string]any{
		"receiver": "agentk", "status": "firing", "version": "4",
		"groupKey":          fmt.Sprintf("{}/{ruleId=%q}:{alertname=%q}", project, labels["alertname"]),
		"groupLabels":       map[string]string{"alertname": labels["alertname"]},
		"commonLabels":      labels,
		"commonAnnotations": ann,
		"externalURL":       "http://localhost:8080",
		"truncatedAlerts":   0,
		"alerts": []map[string]any{{
			"status": "firing", "labels": labels, "annotations": ann,
			"startsAt": startsAt.Format(time.RFC3339), "endsAt": "0001-01-01T00:00:00Z",
			"fingerprint": randHexN(8), "generatorURL": "http://localhost:8080/alerts/edit?ruleId=" + project,
		}},
	})
	return body
}

func postAlert(ctx context.Context, url, token string, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("demo --live: ingester: %w", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("demo --live: the ingester refused the alert: %s: %s", resp.Status, strings.TrimSpace(string(b)))
	}
	return nil
}

var liveProducers = map[string]string{
	contracts.SubjectAlert:    envelope.RoleIngester,
	contracts.SubjectReport:   envelope.RoleInvestigator,
	contracts.SubjectReview:   envelope.RoleReviewer,
	contracts.SubjectDecision: envelope.RoleGate,
	contracts.SubjectApproval: envelope.RoleBridge,
	contracts.SubjectAction:   envelope.RoleDeployer,
}

// openAs verifies a message as its one producer's before it is believed.
func openAs(kr *envelope.Keyring, m *nats.Msg, role string, now func() time.Time, v any) error {
	if _, err := kr.Open(m.Data, m.Subject, role, now(), v); err != nil {
		return fmt.Errorf("demo --live: observed %s failed verification: %w", m.Subject, err)
	}
	return nil
}

// liveApprove clicks in the Slack message the bridge posted: Approve for
// the auto-approver, or what the human at the terminal answers.
func liveApprove(ctx context.Context, slack *fakeslack.Server, d contracts.DecisionV1, url, secret string, now func() time.Time, ask func(string) bool, p *liveProgress) error {
	msg, err := slack.WaitMessage(ctx, func(m fakeslack.Message) bool {
		for _, b := range m.Buttons() {
			if b.ActionID == fakeslack.Approve && strings.Contains(b.Value, d.DecisionID) {
				return true
			}
		}
		return false
	})
	if err != nil {
		return fmt.Errorf("demo --live: no Slack approval request for %s: %w", d.DecisionID, err)
	}
	action, who := fakeslack.Approve, "the AUTO-APPROVER (demo; no human involved)"
	if ask != nil {
		who = "you"
		if !ask(fmt.Sprintf("Roll %s back to %s?", d.Service, d.RollbackTarget)) {
			action = fakeslack.Deny
		}
	}
	p.step("Slack message posted with Approve/Deny buttons (local fake Slack); %s clicks %s", who, strings.TrimPrefix(action, "agentk_"))
	status, err := slack.Click(ctx, url, secret, now(), msg, liveApproverID, action)
	if err != nil {
		return fmt.Errorf("demo --live: click: %w", err)
	}
	if status/100 != 2 {
		return fmt.Errorf("demo --live: the bridge answered the click with HTTP %d", status)
	}
	return nil
}

// ledgerLen is the number of releases in the deployer's signed ledger of
// the service: 0 when there is none or it does not verify.
func ledgerLen(ctx context.Context, admin *bus.Conn, kr *envelope.Keyring, now func() time.Time) int {
	kv, err := admin.KeyValue(ctx, topology.BucketReleases)
	if err != nil {
		return 0
	}
	e, err := kv.Get(ctx, liveService)
	if err != nil {
		return 0
	}
	var l contracts.ReleaseLedgerV1
	if _, err := kr.Open(e.Value(), contracts.SubjectLedger, envelope.RoleDeployer, now(), &l); err != nil {
		return 0
	}
	return len(l.Releases)
}

// loadLoop sends GET /ask at a fixed rate on loopback until stopped; it
// can be paused. Bounded: it ends with the demo's context.
type loadLoop struct {
	paused   atomic.Bool
	sent, ok atomic.Int64
	cancel   context.CancelFunc
	done     chan struct{}
}

func startLoad(ctx context.Context, url string, rate int) *loadLoop {
	ctx, cancel := context.WithCancel(ctx)
	l := &loadLoop{cancel: cancel, done: make(chan struct{})}
	c := &http.Client{Timeout: 2 * time.Second}
	go func() {
		defer close(l.done)
		t := time.NewTicker(time.Second / time.Duration(rate))
		defer t.Stop()
		var wg sync.WaitGroup
		defer wg.Wait()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if l.paused.Load() {
					continue
				}
				l.sent.Add(1)
				wg.Add(1)
				go func() {
					defer wg.Done()
					req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
					if err != nil {
						return
					}
					resp, err := c.Do(req)
					if err != nil {
						return
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode/100 == 2 {
						l.ok.Add(1)
					}
				}()
			}
		}
	}()
	return l
}

func (l *loadLoop) pause(on bool) { l.paused.Store(on) }

func (l *loadLoop) stop() {
	l.cancel()
	<-l.done
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
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-tm.C:
		return nil
	}
}

func randHexN(n int) string {
	b := make([]byte, n)
	if _, err := io.ReadFull(rand.Reader, b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer func() { _ = l.Close() }()
	return l.Addr().String(), nil
}

func liveFreePort() (int, error) {
	a, err := freeAddr()
	if err != nil {
		return 0, err
	}
	_, port, _ := net.SplitHostPort(a)
	var n int
	_, err = fmt.Sscan(port, &n)
	return n, err
}

func serveLoopback(h http.Handler) (string, func(), error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(l) }()
	return "http://" + l.Addr().String(), func() { _ = srv.Close() }, nil
}
