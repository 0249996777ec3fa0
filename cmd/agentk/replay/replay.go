// Package replay runs one recorded incident through every agentk service over
// a real (embedded) NATS server: the fake SigNoz serves the incident's
// telemetry, the clock starts at the incident's now, the chosen investigator
// investigates, an approver answers through the bridge's real Slack path, and
// the deployer acts with its dry-run runtime. Nothing in the pipeline reads the
// incident's expected answer; only the scoring does.
package replay

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"agentk/cmd/agentk/stack"
	"agentk/contracts/incident"
	"agentk/platform/fabric"
	"agentk/platform/service"
	"agentk/services/bridge/fakeslack"
	"agentk/services/investigator/scripted"
	"agentk/services/sandbox/fakesignoz"
	"agentk/services/sandbox/fakesignoz/mcpserver"
)

// Errors of Run: a bad option, or an incident the pipeline did not finish.
var (
	ErrInvestigator = errors.New("replay: unknown investigator")
	ErrBackend      = errors.New("replay: unknown sandbox backend")
	ErrTimeout      = errors.New("replay: the incident did not finish in time")
	ErrIngest       = errors.New("replay: the ingester refused the alert")
)

// Options configure a replay.
type Options struct {
	// Investigator is "rules" (default) or "persona:<name>" (scripted model).
	Investigator string
	// Timeout bounds the whole replay (default 60 s).
	Timeout time.Duration
	// Logger receives the services' logs (default: discarded).
	Logger *slog.Logger
	// Progress, when set, receives one human-readable line per step.
	Progress io.Writer
	// DataDir holds the embedded NATS store; default a temporary folder removed after.
	DataDir string
	// Interactive, when set, asks this function instead of auto-approving.
	Interactive func(summary string) (approve bool)
	// Telemetry, when non-nil, are OTEL_* variables (and AGENTK_OTEL_DISABLED)
	// for the replay's own telemetry: the replay installs one tracer provider
	// per service (telemetry.SetupServices) and flushes it before it returns.
	// When nil the process's global providers are used as they are.
	Telemetry map[string]string
	// SandboxBackend is where the sandbox gets its telemetry: "" or "api",
	// SigNoz's v5 API (the fake SigNoz); "mcp", a SigNoz MCP server (our
	// fakesignoz/mcpserver, over streamable HTTP, in front of the same fake).
	SandboxBackend string
	// ReplayApproval, set for the replayer persona, replays the approval after
	// the deployer acted on it (observer.replayApproval).
	ReplayApproval bool
	// Env, when set, adds to or overrides the services' environment after the
	// replay's own (AGENTK_SHADOW, a deployer runtime, …); an empty value unsets.
	Env map[string]string
}

const (
	approverID   = "UREPLAYAPPROVER"
	approverName = "auto-approver"
	botToken     = "xoxb-replay-not-a-real-token"
)

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
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

// serve starts h on a loopback port and returns its base URL and a stop function.
func serve(h http.Handler) (string, func(), error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(l) }()
	return "http://" + l.Addr().String(), func() { _ = srv.Close() }, nil
}

// Run replays the incident folder dir.
func Run(ctx context.Context, dir string, o Options) (Result, error) {
	inc, err := incident.Load(dir)
	if err != nil {
		return Result{}, err
	}
	return RunIncident(ctx, inc, o)
}

// RunIncident replays an already loaded incident. The ingester and bridge
// listen on ports picked free just before they bind; when another process
// takes one in between, the replay starts over, up to three times.
func RunIncident(ctx context.Context, inc *incident.Incident, o Options) (Result, error) {
	for attempt := 1; ; attempt++ {
		res, err := runIncident(ctx, inc, o)
		if err == nil || attempt == 3 || !errors.Is(err, syscall.EADDRINUSE) && !strings.Contains(err.Error(), "address already in use") {
			return res, err
		}
	}
}

func runIncident(ctx context.Context, inc *incident.Incident, o Options) (res Result, err error) {
	started := time.Now()
	if o.Investigator == "" {
		o.Investigator = "rules"
	}
	if o.Timeout == 0 {
		o.Timeout = 60 * time.Second
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	p := progress{w: o.Progress}
	res = Result{Incident: inc.Meta.ID, Investigator: o.Investigator, FailedChecks: []string{},
		Expect: Expectation{inc.Meta.Expect.RootCause, inc.Meta.Expect.Verdict, inc.Meta.Expect.FailedChecks}}

	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()

	dataDir := o.DataDir
	if dataDir == "" {
		dataDir, err = os.MkdirTemp("", "agentk-replay-")
		if err != nil {
			return res, err
		}
		defer func() { _ = os.RemoveAll(dataDir) }()
	}

	env := map[string]string{
		"AGENTK_OTEL_DISABLED": "1",
	}
	if o.Telemetry != nil {
		shutdown, err := setupTelemetry(ctx, o.Telemetry)
		if err != nil {
			return res, err
		}
		defer shutdown()
	}
	// The fake SigNoz, serving the incident's telemetry.
	apiKey := "replay-" + randHex(8)
	// Relative ranges ("the last hour", as an MCP client asks) are measured
	// from the replay clock, which starts at the incident's now.
	sigURL, stopSig, err := serve(fakesignoz.New(inc, fakesignoz.Options{APIKey: apiKey, ReplayNow: service.Since(inc.Meta.Now)}))
	if err != nil {
		return res, err
	}
	defer stopSig()
	// Exactly what docs/signoz.md tells an operator to set, nothing more:
	// the link base every service uses follows from AGENTK_SIGNOZ_URL.
	keyFile := filepath.Join(dataDir, "signoz_api_key")
	if err := os.WriteFile(keyFile, []byte(apiKey+"\n"), 0o600); err != nil {
		return res, err
	}
	for k, v := range SigNozEnv(sigURL, keyFile) {
		env[k] = v
	}
	switch o.SandboxBackend {
	case "", "api":
	case "mcp":
		// The MCP server holds no key: the sandbox sends its own with each call.
		msrv, err := mcpserver.New(mcpserver.Options{SigNozURL: sigURL, Now: service.Since(inc.Meta.Now)})
		if err != nil {
			return res, err
		}
		mcpURL, stopMCP, err := serve(mcpserver.HTTPHandler(msrv))
		if err != nil {
			return res, err
		}
		defer stopMCP()
		env["AGENTK_SANDBOX_BACKEND"] = "mcp"
		env["AGENTK_SIGNOZ_MCP_URL"] = mcpURL + "/mcp"
	default:
		return res, fmt.Errorf("%w: %q (want api or mcp)", ErrBackend, o.SandboxBackend)
	}

	// The investigator: offline rules, or a scripted model.
	switch {
	case o.Investigator == "rules":
		env["AGENTK_INVESTIGATOR"] = "rules"
	case strings.HasPrefix(o.Investigator, "persona:"):
		name := strings.TrimPrefix(o.Investigator, "persona:")
		if !scripted.Known(name) {
			return res, fmt.Errorf("%w: %q (personas: %s)", ErrInvestigator, o.Investigator, strings.Join(scripted.Personas(), ", "))
		}
		// Replays keep the flaky persona's failures (429, 500, malformed JSON,
		// a hang) but make its waits short, so an eval stays minutes long.
		opts := []scripted.Option{scripted.WithModel("scripted-" + name), scripted.WithHang(300 * time.Millisecond), scripted.WithRetryAfter(1)}
		switch name {
		case scripted.Oracle, scripted.Flaky, scripted.Wrong, scripted.Replayer:
			// Only these personas are told the truth (flaky and the replayer
			// answer like the oracle, wrong avoids it); nothing in the
			// pipeline is.
			opts = append(opts, scripted.WithTruth(inc.Meta.Expect.RootCause))
		}
		o.ReplayApproval = name == scripted.Replayer
		modelURL, stopModel, err := serve(scripted.New(name, opts...))
		if err != nil {
			return res, err
		}
		defer stopModel()
		env["AGENTK_INVESTIGATOR"] = "llm"
		env["AGENTK_LLM_PROVIDER"] = "custom"
		env["AGENTK_LLM_BASE_URL"] = modelURL + "/v1"
		env["AGENTK_LLM_API_KEY"] = "scripted"
		env["AGENTK_LLM_MODEL"] = "scripted-" + name
		env["AGENTK_LLM_PERSONA"] = name
		env["AGENTK_LLM_RETRY_BACKOFF"] = "50ms"
	default:
		return res, fmt.Errorf("%w: %q (want rules or persona:<name>)", ErrInvestigator, o.Investigator)
	}

	// Slack, played locally; the approver clicks through the bridge's real path.
	slack := fakeslack.New(botToken)
	defer slack.Close()
	signingSecret := randHex(16)
	bridgeAddr, err := freeAddr()
	if err != nil {
		return res, err
	}
	env["AGENTK_BRIDGE_ADDR"] = bridgeAddr
	env["AGENTK_SLACK_API_URL"] = slack.APIURL()
	env["AGENTK_SLACK_BOT_TOKEN"] = botToken
	env["AGENTK_SLACK_SIGNING_SECRET"] = signingSecret
	env["AGENTK_SLACK_CHANNEL"] = "#agentk-replay"
	env["AGENTK_SLACK_RESPONSE_URL_PREFIX"] = slack.ResponseURLPrefix()
	env["AGENTK_APPROVERS"] = "slack:" + approverID + "=" + approverName

	// The gate's and the deployer's scope, and the deployer's dry run.
	scope := inc.SandboxScope()
	env["AGENTK_SANDBOX_SERVICES"] = strings.Join(scope, ",")
	env["AGENTK_DEPLOYER_SERVICES"] = strings.Join(scope, ",")
	env["AGENTK_DEPLOYER_RUNTIME"] = "dryrun"
	if o.ReplayApproval {
		// Issue 17's second approval landed 11 minutes after the first,
		// past the deployer's 10-minute cooldown and inside the decision's
		// 15 minutes. The replay's clock does not jump, so the cooldown is
		// made to have passed instead: only the deployer's check that a
		// decision pays for one action stands in the replayer's way.
		env["AGENTK_DEPLOYER_COOLDOWN"] = "1ms"
	}
	env["AGENTK_INCIDENT_DIR"] = inc.Dir
	env["AGENTK_COMPOSE_PROJECT"] = inc.Releases.Project

	// The front door.
	ingestAddr, err := freeAddr()
	if err != nil {
		return res, err
	}
	ingestToken := randHex(16)
	env["AGENTK_INGEST_ADDR"] = ingestAddr
	env["AGENTK_INGEST_TOKEN"] = ingestToken

	for k, v := range o.Env {
		env[k] = v
	}
	getenv := func(k string) string { return env[k] }
	now := service.Since(inc.Meta.Now)

	p.step("incident %s: %s", inc.Meta.ID, inc.Meta.Title)
	f, err := fabric.StartEmbedded(ctx, fabric.Options{DataDir: dataDir, Logger: log})
	if err != nil {
		return res, err
	}
	defer func() { _ = f.Close() }()
	p.step("embedded NATS up at %s; replay clock at %s", f.URL(), inc.Meta.Now.Format(time.RFC3339))

	obs, err := newObserver(ctx, f, now)
	if err != nil {
		return res, err
	}
	defer obs.close()

	running, err := stack.Start(ctx, nil, func(ctx context.Context, role string) (service.Deps, error) {
		return f.Deps(ctx, role, now, getenv)
	}, log, 20*time.Second)
	if err != nil {
		return res, err
	}
	defer func() {
		if serr := running.Stop(); serr != nil && err == nil {
			log.Warn("services stopped with errors", "err", serr)
		}
	}()
	p.step("7 services running, each with its own NATS credentials")

	// The alert, exactly as SigNoz would post it.
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+ingestAddr+"/v1/alerts", bytes.NewReader(inc.AlertJSON))
	if err != nil {
		return res, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+ingestToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return res, fmt.Errorf("%w: %v", ErrIngest, err)
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return res, fmt.Errorf("%w: %s: %s", ErrIngest, resp.Status, strings.TrimSpace(string(body)))
	}
	p.step("alert posted to the ingester: %s", resp.Status)

	out, err := obs.follow(ctx, inc, slack, "http://"+bridgeAddr+"/slack/interactions", signingSecret, now, o, p)
	if err != nil {
		return res, err
	}
	out.fill(&res)
	res.DurationMs = time.Since(started).Milliseconds()
	return res, nil
}

// SigNozEnv is the SigNoz configuration a replay gives its services: the
// variables docs/signoz.md's steps set (the API URL and the key as a file),
// and no other. TestSigNozDocFollowedLiterally holds the doc to it.
func SigNozEnv(apiURL, keyFile string) map[string]string {
	return map[string]string{
		"AGENTK_SIGNOZ_URL":          apiURL,
		"AGENTK_SIGNOZ_API_KEY_FILE": keyFile,
	}
}

// progress prints steps when a writer is set.
type progress struct{ w io.Writer }

func (p progress) step(format string, a ...any) {
	if p.w != nil {
		fmt.Fprintf(p.w, "  • "+format+"\n", a...)
	}
}
