// Package replay runs one recorded incident through every agentk service over
// a real (embedded) NATS server: the fake SigNoz serves the incident's
// telemetry, the clock starts at the incident's now, the chosen investigator
// investigates, an approver answers through the bridge's real Slack path, and
// the deployer acts with its dry-run runtime. Nothing in the pipeline reads the
// incident's expected answer; only the scoring does.
package replay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"agentk/cmd/agentk/internal/harness"
	"agentk/cmd/agentk/stack"
	"agentk/contracts/incident"
	"agentk/platform/bus"
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
	// SigNoz's v5 API (the fake SigNoz); "mcp", a SigNoz MCP server: MCP
	// when set, else our fakesignoz/mcpserver, over streamable HTTP, in
	// front of the same fake.
	SandboxBackend string
	// MCP is an MCP server of the operator's own (the official one, say)
	// for the "mcp" backend instead of ours; zero means ours.
	MCP MCPServer
	// ReplayApproval, set for the replayer persona, replays the approval after
	// the deployer acted on it (observer.replayApproval).
	ReplayApproval bool
	// Env, when set, adds to or overrides the services' environment after the
	// replay's own (AGENTK_SHADOW, a deployer runtime, …); an empty value unsets.
	Env map[string]string
	// Shared, when set, is what replays share (each incident's indexed
	// telemetry); Eval sets one for its replays when it is nil.
	Shared *Shared

	// teardowns, set by Eval, has a replay stop what it started in the
	// background once its outcome is known; Eval waits for them all.
	teardowns *sync.WaitGroup
}

const (
	approverID   = "UREPLAYAPPROVER"
	approverName = "auto-approver"
	botToken     = "xoxb-replay-not-a-real-token"
)

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
	o, log := withDefaults(o)
	res = Result{Incident: inc.Meta.ID, Investigator: o.Investigator, FailedChecks: []string{},
		Expect: Expectation{inc.Meta.Expect.RootCause, inc.Meta.Expect.Verdict, inc.Meta.Expect.FailedChecks, inc.Meta.Expect.Culprit}}

	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	// Everything the replay started is stopped, last first, once its
	// outcome is known: here, or in the background when an eval asked
	// (Options.teardowns).
	stops := []func(){cancel}
	defer func() { tearDown(stops, o.teardowns) }()
	dataDir := o.DataDir
	if dataDir == "" {
		dataDir, err = scratchDir()
		if err != nil {
			return res, err
		}
		stops = append(stops, func() { _ = os.RemoveAll(dataDir) })
	}
	if o.Telemetry != nil {
		shutdown, err := setupTelemetry(ctx, o.Telemetry)
		if err != nil {
			return res, err
		}
		stops = append(stops, shutdown)
	}
	env := map[string]string{"AGENTK_OTEL_DISABLED": "1"}
	for _, step := range []func(*incident.Incident, *Options, map[string]string) (func(), error){
		func(inc *incident.Incident, o *Options, env map[string]string) (func(), error) {
			t, err := o.Shared.telemetry(inc)
			if err != nil {
				return nil, err
			}
			return signozEnv(t, inc, dataDir, env)
		},
		sandboxEnv, investigatorEnv,
	} {
		stop, err := step(inc, &o, env)
		if err != nil {
			return res, err
		}
		stops = append(stops, stop)
	}
	slack := fakeslack.New(botToken)
	stops = append(stops, slack.Close)
	front, err := frontEnv(inc, o, slack, env)
	if err != nil {
		return res, err
	}
	out, err := run(ctx, inc, o, log, dataDir, env, slack, front, &stops)
	if err != nil {
		return res, err
	}
	out.fill(&res)
	res.DurationMs = time.Since(started).Milliseconds()
	return res, nil
}

// ramDir is where a replay's scratch folder goes when the system has a
// RAM-backed one: the embedded NATS server's file store (a folder and
// metadata files per stream, bucket and consumer, created and removed with
// every replay) cost a replay more system time on a disk than the whole
// pipeline's work did. Since then a scratch folder's streams are kept in
// memory (run); the folder still holds the keys and the server's config.
var ramDir = "/dev/shm"

// scratchDir makes a replay's temporary data folder: in ramDir when a
// folder can be made there, else in the system's temporary folder.
func scratchDir() (string, error) {
	if dir, err := os.MkdirTemp(ramDir, "agentk-replay-"); err == nil {
		return dir, nil
	}
	return os.MkdirTemp("", "agentk-replay-")
}

// tearDown runs stops, last first: at once, or in the background counted in
// wg when wg is set (an eval's replays, whose outcome is known by then: the
// NATS server's shutdown alone takes a quarter of a second, spent waiting).
func tearDown(stops []func(), wg *sync.WaitGroup) {
	all := func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	if wg == nil {
		all()
		return
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		all()
	}()
}

// withDefaults fills in the options' defaults and returns the logger.
func withDefaults(o Options) (Options, *slog.Logger) {
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
	return o, log
}

// signozEnv starts a fake SigNoz serving the incident's telemetry tel and sets
// what docs/signoz.md tells an operator to set, nothing more: the link base
// every service uses follows from AGENTK_SIGNOZ_URL.
func signozEnv(tel *fakesignoz.Telemetry, inc *incident.Incident, dataDir string, env map[string]string) (func(), error) {
	apiKey := "replay-" + harness.RandHex(8)
	// Relative ranges ("the last hour", as an MCP client asks) are measured
	// from the replay clock, which starts at the incident's now.
	sigURL, stopSig, err := harness.Serve(tel.Server(fakesignoz.Options{APIKey: apiKey, ReplayNow: service.Since(inc.Meta.Now)}))
	if err != nil {
		return nil, err
	}
	keyFile := filepath.Join(dataDir, "signoz_api_key")
	if err := os.WriteFile(keyFile, []byte(apiKey+"\n"), 0o600); err != nil {
		stopSig()
		return nil, err
	}
	for k, v := range SigNozEnv(sigURL, keyFile) {
		env[k] = v
	}
	return stopSig, nil
}

// MCPServer is an external SigNoz MCP server a replay's sandbox uses: a
// command it starts over stdio (handed SIGNOZ_URL, the replay's fake SigNoz,
// SIGNOZ_API_KEY, and the variables Env names), or a streamable HTTP
// endpoint (sent the key and X-SigNoz-URL with each request). Exactly one of
// Command and URL is set.
type MCPServer struct {
	Command string
	Args    []string
	URL     string
	Env     []string
}

// IsZero reports whether no external server is set.
func (m MCPServer) IsZero() bool {
	return m.Command == "" && m.URL == "" && m.Args == nil && m.Env == nil
}

// setEnv sets the sandbox's variables for m (docs/configuration.md).
func (m MCPServer) setEnv(env map[string]string) error {
	switch {
	case m.Command != "" && m.URL != "":
		return fmt.Errorf("%w: an MCP command or an MCP URL, not both", ErrBackend)
	case m.Command == "" && m.URL == "":
		return fmt.Errorf("%w: MCP arguments or environment without an MCP command", ErrBackend)
	case m.URL != "" && (m.Args != nil || m.Env != nil):
		return fmt.Errorf("%w: MCP arguments and environment are for a command, not a URL", ErrBackend)
	}
	env["AGENTK_SANDBOX_BACKEND"] = "mcp"
	if m.URL != "" {
		env["AGENTK_SIGNOZ_MCP_URL"] = m.URL
		return nil
	}
	env["AGENTK_SIGNOZ_MCP_COMMAND"] = m.Command
	if m.Args != nil {
		b, err := json.Marshal(m.Args)
		if err != nil {
			return err
		}
		env["AGENTK_SIGNOZ_MCP_ARGS"] = string(b)
	}
	if m.Env != nil {
		env["AGENTK_SIGNOZ_MCP_ENV"] = strings.Join(m.Env, ",")
	}
	return nil
}

// sandboxEnv chooses the sandbox's backend: SigNoz's API, or an MCP server
// in front of it (the operator's own, o.MCP, or ours).
func sandboxEnv(inc *incident.Incident, o *Options, env map[string]string) (func(), error) {
	switch o.SandboxBackend {
	case "", "api":
		if !o.MCP.IsZero() {
			return nil, fmt.Errorf("%w: an MCP server is set but the sandbox backend is %q; want mcp", ErrBackend, o.SandboxBackend)
		}
		return func() {}, nil
	case "mcp":
		if !o.MCP.IsZero() {
			return func() {}, o.MCP.setEnv(env)
		}
		// The MCP server holds no key: the sandbox sends its own with each call.
		msrv, err := mcpserver.New(mcpserver.Options{SigNozURL: env["AGENTK_SIGNOZ_URL"], Now: service.Since(inc.Meta.Now)})
		if err != nil {
			return nil, err
		}
		mcpURL, stopMCP, err := harness.Serve(mcpserver.HTTPHandler(msrv))
		if err != nil {
			return nil, err
		}
		env["AGENTK_SANDBOX_BACKEND"] = "mcp"
		env["AGENTK_SIGNOZ_MCP_URL"] = mcpURL + "/mcp"
		return stopMCP, nil
	default:
		return nil, fmt.Errorf("%w: %q (want api or mcp)", ErrBackend, o.SandboxBackend)
	}
}

// investigatorEnv chooses the investigator: offline rules, or a scripted
// model. The replayer persona sets o.ReplayApproval.
func investigatorEnv(inc *incident.Incident, o *Options, env map[string]string) (func(), error) {
	switch {
	case o.Investigator == "rules":
		env["AGENTK_INVESTIGATOR"] = "rules"
		return func() {}, nil
	case strings.HasPrefix(o.Investigator, "persona:"):
	default:
		return nil, fmt.Errorf("%w: %q (want rules or persona:<name>)", ErrInvestigator, o.Investigator)
	}
	name := strings.TrimPrefix(o.Investigator, "persona:")
	if !scripted.Known(name) {
		return nil, fmt.Errorf("%w: %q (personas: %s)", ErrInvestigator, o.Investigator, strings.Join(scripted.Personas(), ", "))
	}
	// Replays keep the flaky persona's failures (429, 500, malformed JSON,
	// a hang) but make its waits short, so an eval stays minutes long.
	opts := []scripted.Option{scripted.WithModel("scripted-" + name), scripted.WithHang(300 * time.Millisecond), scripted.WithRetryAfter(1)}
	switch name {
	case scripted.Oracle, scripted.Flaky, scripted.Wrong, scripted.Replayer:
		// Only these personas are told the truth (flaky and the replayer
		// answer like the oracle, wrong avoids it); nothing in the
		// pipeline is.
		opts = append(opts, scripted.WithTruth(inc.Meta.Expect.RootCause), scripted.WithCulprit(expectCulprit(inc)))
	}
	o.ReplayApproval = name == scripted.Replayer
	modelURL, stopModel, err := harness.Serve(scripted.New(name, opts...))
	if err != nil {
		return nil, err
	}
	env["AGENTK_INVESTIGATOR"] = "llm"
	env["AGENTK_LLM_PROVIDER"] = "custom"
	env["AGENTK_LLM_BASE_URL"] = modelURL + "/v1"
	env["AGENTK_LLM_API_KEY"] = "scripted"
	env["AGENTK_LLM_MODEL"] = "scripted-" + name
	env["AGENTK_LLM_PERSONA"] = name
	env["AGENTK_LLM_RETRY_BACKOFF"] = "50ms"
	return stopModel, nil
}

// frontDoor is where the replay reaches the pipeline: the bridge's Slack
// interactions and the ingester's webhook.
type frontDoor struct {
	bridgeAddr, signingSecret string
	ingestAddr, ingestToken   string
}

// frontEnv sets Slack (played locally: the approver clicks through the
// bridge's real path), the gate's and the deployer's scope, the deployer's
// dry run and the ingester's front door, then the caller's o.Env.
func frontEnv(inc *incident.Incident, o Options, slack *fakeslack.Server, env map[string]string) (frontDoor, error) {
	fd := frontDoor{signingSecret: harness.RandHex(16)}
	var err error
	if fd.bridgeAddr, err = harness.FreeAddr(); err != nil {
		return fd, err
	}
	env["AGENTK_BRIDGE_ADDR"] = fd.bridgeAddr
	env["AGENTK_SLACK_API_URL"] = slack.APIURL()
	env["AGENTK_SLACK_BOT_TOKEN"] = botToken
	env["AGENTK_SLACK_SIGNING_SECRET"] = fd.signingSecret
	env["AGENTK_SLACK_CHANNEL"] = "#agentk-replay"
	env["AGENTK_SLACK_RESPONSE_URL_PREFIX"] = slack.ResponseURLPrefix()
	env["AGENTK_APPROVERS"] = "slack:" + approverID + "=" + approverName

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

	if fd.ingestAddr, err = harness.FreeAddr(); err != nil {
		return fd, err
	}
	fd.ingestToken = harness.RandHex(16)
	env["AGENTK_INGEST_ADDR"] = fd.ingestAddr
	env["AGENTK_INGEST_TOKEN"] = fd.ingestToken
	for k, v := range o.Env {
		env[k] = v
	}
	return fd, nil
}

// run starts NATS, the observer and every service on env, posts the
// incident's alert and follows the pipeline to the incident's end.
func run(ctx context.Context, inc *incident.Incident, o Options, log *slog.Logger, dataDir string,
	env map[string]string, slack *fakeslack.Server, fd frontDoor, stops *[]func()) (out *outcome, err error) {
	p := progress{w: o.Progress}
	getenv := func(k string) string { return env[k] }
	now := service.Since(inc.Meta.Now)

	p.step("incident %s: %s", inc.Meta.ID, inc.Meta.Title)
	// A store in a scratch folder of the replay's own is removed when the
	// replay ends, unread: it is kept in memory (bus.ProvisionConfig.Memory).
	// A caller's DataDir keeps the file store, for `agentk report` and the
	// like to read afterwards.
	prov := bus.ProvisionConfig{Memory: o.DataDir == ""}
	f, err := fabric.StartEmbedded(ctx, fabric.Options{DataDir: dataDir, Logger: log, Provision: prov})
	if err != nil {
		return nil, err
	}
	*stops = append(*stops, func() { _ = f.Close() })
	p.step("embedded NATS up at %s; replay clock at %s", f.URL(), inc.Meta.Now.Format(time.RFC3339))

	obs, err := newObserver(ctx, f, now)
	if err != nil {
		return nil, err
	}
	*stops = append(*stops, obs.close)

	running, err := stack.Start(ctx, nil, func(ctx context.Context, role string) (service.Deps, error) {
		return f.Deps(ctx, role, now, getenv)
	}, log, 20*time.Second)
	if err != nil {
		return nil, err
	}
	*stops = append(*stops, func() {
		if serr := running.Stop(); serr != nil {
			log.Warn("services stopped with errors", "err", serr)
		}
	})
	p.step("7 services running, each with its own NATS credentials")

	// The alert, exactly as SigNoz would post it.
	status, err := harness.PostAlert(ctx, "http://"+fd.ingestAddr+"/v1/alerts", fd.ingestToken, inc.AlertJSON)
	var refused *harness.Refused
	switch {
	case errors.As(err, &refused):
		return nil, fmt.Errorf("%w: %s", ErrIngest, refused)
	case err != nil:
		return nil, fmt.Errorf("%w: %v", ErrIngest, err)
	}
	p.step("alert posted to the ingester: %s", status)
	return obs.follow(ctx, inc, slack, "http://"+fd.bridgeAddr+"/slack/interactions", fd.signingSecret, now, o, p)
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
