// Package operator holds the end-to-end tests of what an operator relies on
// before trusting agentk: shadow mode on the real Docker engine, freezes
// through the bridge's API, the gate and the deployer, and their expiry.
package operator

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"agentk/cmd/agentk/stack"
	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/contracts/incident"
	"agentk/e2e/corpusgen"
	"agentk/platform/bus"
	"agentk/platform/fabric"
	"agentk/platform/freeport"
	"agentk/platform/service"
	"agentk/platform/topology"
	"agentk/services/bridge/fakeslack"
	"agentk/services/sandbox/fakesignoz"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"
)

const (
	approverID   = "UOPERATORONCALL"
	approverName = "oncall"
	botToken     = "xoxb-operator-not-a-real-token"
	svc          = "shop-api"
)

// pipeline is agentk's seven services in this process over an embedded
// NATS, wired as `agentk up` wires them, with a fake SigNoz serving one
// incident's telemetry, a fake Slack the on-call human clicks in, and one
// clock for every service that the test can move forward.
type pipeline struct {
	t       *testing.T
	inc     *incident.Incident
	fab     *fabric.Fabric
	admin   *bus.Conn
	kr      *envelope.Keyring
	env     map[string]string
	slack   *fakeslack.Server
	secret  string
	bridge  string // host:port
	ingest  string
	token   string // ingester bearer
	console string // the approver's API token
	base    time.Time
	t0      time.Time
	skew    atomic.Int64 // added to the clock, ns
	msgs    chan *nats.Msg
	sub     *nats.Subscription
}

// now is every service's clock: the incident's now, running at wall-clock
// speed, plus whatever the test advanced it by.
func (p *pipeline) now() time.Time {
	return p.base.Add(time.Since(p.t0) + time.Duration(p.skew.Load())).UTC()
}

// setNow moves every service's clock so that it reads at now.
func (p *pipeline) setNow(at time.Time) {
	p.skew.Add(int64(at.Sub(p.now())))
}

// liveIncident writes a corpus scenario as if its alert fired now, so that
// the services' clock is the wall clock (as the Docker engine's is).
func liveIncident(t *testing.T, id string) *incident.Incident {
	t.Helper()
	return liveIncidentAt(t, id, time.Now().UTC().Truncate(time.Second))
}

// liveIncidentDeployedAt is liveIncident with its timeline placed so that
// the affected service's last release (its deployment.marker) starts at
// deployAt: for a test whose release ledger is Docker's, where the gate
// counts the marker only when Docker started that release within the
// marker tolerance of it (DESIGN.md rule 15).
func liveIncidentDeployedAt(t *testing.T, id string, deployAt time.Time) *incident.Incident {
	t.Helper()
	probe := liveIncident(t, id)
	rels := probe.Releases.Services[probe.Meta.Service]
	require.NotEmpty(t, rels, "%s: no release of %s", id, probe.Meta.Service)
	lead := probe.Meta.Now.Sub(rels[len(rels)-1].DeployedAt)
	return liveIncidentAt(t, id, deployAt.Add(lead).UTC().Truncate(time.Second))
}

func liveIncidentAt(t *testing.T, id string, now time.Time) *incident.Incident {
	t.Helper()
	var sc corpusgen.Scenario
	for _, s := range corpusgen.Scenarios() {
		if s.ID == id {
			sc = s
		}
	}
	require.NotEmpty(t, sc.ID, "%s is no longer in the corpus", id)
	sc.ID = "live-" + id
	sc.Now = now
	dir := t.TempDir()
	require.NoError(t, corpusgen.Write(dir, []corpusgen.Scenario{sc}))
	inc, err := incident.Load(filepath.Join(dir, sc.ID))
	require.NoError(t, err)
	return inc
}

func serve(t *testing.T, h http.Handler) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + l.Addr().String()
}

// newPipeline prepares the environment of every service (the replay's, with
// the dry-run deployer) and starts the fabric; extra adds to or overrides
// it (an empty value unsets). No service runs yet.
func newPipeline(ctx context.Context, t *testing.T, inc *incident.Incident, extra map[string]string) *pipeline {
	t.Helper()
	p := &pipeline{t: t, inc: inc, base: inc.Meta.Now, t0: time.Now(), msgs: make(chan *nats.Msg, 4096)}
	sig := serve(t, fakesignoz.New(inc, fakesignoz.Options{APIKey: "operator-key"}))
	p.slack = fakeslack.New(botToken)
	t.Cleanup(p.slack.Close)
	p.secret = "operator-slack-signing-secret"
	p.bridge, p.ingest = freeport.Addr(t), freeport.Addr(t)
	p.token = "operator-ingest-token"
	p.console = "operator-console-token-0123456789"
	scope := strings.Join(inc.Meta.SandboxServices, ",")
	if scope == "" {
		scope = svc
	}
	p.env = map[string]string{
		"AGENTK_OTEL_DISABLED":             "1",
		"AGENTK_SIGNOZ_URL":                sig,
		"AGENTK_SIGNOZ_BASE_URL":           sig,
		"AGENTK_SIGNOZ_API_KEY":            "operator-key",
		"AGENTK_INVESTIGATOR":              "rules",
		"AGENTK_BRIDGE_ADDR":               p.bridge,
		"AGENTK_SLACK_API_URL":             p.slack.APIURL(),
		"AGENTK_SLACK_BOT_TOKEN":           botToken,
		"AGENTK_SLACK_SIGNING_SECRET":      p.secret,
		"AGENTK_SLACK_CHANNEL":             "#agentk-operator",
		"AGENTK_SLACK_RESPONSE_URL_PREFIX": p.slack.ResponseURLPrefix(),
		"AGENTK_APPROVERS":                 "slack:" + approverID + "=" + approverName,
		"AGENTK_CONSOLE_TOKENS":            approverName + "=" + p.console,
		"AGENTK_SANDBOX_SERVICES":          scope,
		"AGENTK_DEPLOYER_SERVICES":         svc,
		"AGENTK_DEPLOYER_RUNTIME":          "dryrun",
		"AGENTK_INCIDENT_DIR":              inc.Dir,
		"AGENTK_COMPOSE_PROJECT":           inc.Releases.Project,
		"AGENTK_INGEST_ADDR":               p.ingest,
		"AGENTK_INGEST_TOKEN":              p.token,
	}
	for k, v := range extra {
		p.env[k] = v
	}
	log := slog.New(slog.DiscardHandler)
	if os.Getenv("AGENTK_TEST_LOG") == "1" {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	f, err := fabric.StartEmbedded(ctx, fabric.Options{DataDir: t.TempDir(), Logger: log})
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.Close() })
	p.fab, p.kr = f, f.Keyring()
	p.admin, err = f.Admin(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.admin.Close() })
	p.sub, err = p.admin.NATS().ChanSubscribe("agentk.>", p.msgs)
	require.NoError(t, err)
	require.NoError(t, p.admin.NATS().Flush())
	t.Cleanup(func() { _ = p.sub.Unsubscribe() })
	return p
}

// start runs roles (every service when none) until stop is called or the
// test ends, each with its own NATS credentials and this pipeline's clock.
func (p *pipeline) start(ctx context.Context, roles ...string) (stop func()) {
	p.t.Helper()
	log := slog.New(slog.DiscardHandler)
	if os.Getenv("AGENTK_TEST_LOG") == "1" {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	r, err := stack.Start(ctx, roles, func(ctx context.Context, role string) (service.Deps, error) {
		return p.fab.Deps(ctx, role, p.now, func(k string) string { return p.env[k] })
	}, log, 30*time.Second)
	require.NoError(p.t, err)
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			require.NoError(p.t, r.Stop())
		}
	}
	p.t.Cleanup(func() {
		if !stopped {
			stopped = true
			_ = r.Stop()
		}
	})
	return stop
}

// except returns every service's role but the ones named, in start order.
func except(skip ...string) []string {
	var out []string
	for _, e := range stack.Services() {
		keep := true
		for _, s := range skip {
			keep = keep && e.Role != s
		}
		if keep {
			out = append(out, e.Role)
		}
	}
	return out
}

// fire posts the incident's alert, as SigNoz does, under its own rule id:
// each call is then a new incident, not an alert attached to an open one.
func (p *pipeline) fire(ctx context.Context, rule string) {
	t := p.t
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(p.inc.AlertJSON, &v))
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if k == "ruleId" {
					x[k] = rule
					continue
				}
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	body, err := json.Marshal(v)
	require.NoError(t, err)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+p.ingest+"/v1/alerts", bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+p.token)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, 2, resp.StatusCode/100, "ingester: %s: %s", resp.Status, b)
}

// next waits for the next message on subject that verifies as its
// producer's and that match accepts (decoded into a fresh T).
func next[T any](ctx context.Context, p *pipeline, subject string, match func(T) bool) T {
	p.t.Helper()
	for {
		select {
		case <-ctx.Done():
			p.t.Fatalf("no %s arrived: %v", subject, ctx.Err())
		case m := <-p.msgs:
			if m.Subject != subject {
				continue
			}
			var v T
			_, err := p.kr.Open(m.Data, subject, p.now(), &v)
			require.NoError(p.t, err, "observed %s does not verify", subject)
			if match(v) {
				return v
			}
		}
	}
}

// decisionFor waits for the gate's decision on the incident of the next alert.
func (p *pipeline) decision(ctx context.Context) contracts.DecisionV1 {
	p.t.Helper()
	a := next(ctx, p, contracts.SubjectAlert, func(contracts.AlertV1) bool { return true })
	return next(ctx, p, contracts.SubjectDecision, func(d contracts.DecisionV1) bool { return d.IncidentID == a.IncidentID })
}

// click answers decisionID as the on-call human, on the Slack message the
// bridge posted about it; it returns that message.
func (p *pipeline) click(ctx context.Context, decisionID, action string) fakeslack.Message {
	p.t.Helper()
	msg, err := p.slack.WaitMessage(ctx, func(m fakeslack.Message) bool {
		for _, b := range m.Buttons() {
			if b.ActionID == action && strings.Contains(b.Value, decisionID) {
				return true
			}
		}
		return false
	})
	require.NoError(p.t, err, "no Slack request for %s", decisionID)
	status, err := p.slack.Click(ctx, "http://"+p.bridge+"/slack/interactions", p.secret, p.now(), msg, approverID, action)
	require.NoError(p.t, err)
	require.Equal(p.t, 2, status/100, "the bridge answered the click with %d", status)
	return msg
}

// ledgerLen is the number of releases in the deployer's signed ledger of
// the service: 0 when there is none, -1 when it does not verify.
func (p *pipeline) ledgerLen(ctx context.Context) int {
	kv, err := p.admin.KeyValue(ctx, topology.BucketReleases)
	require.NoError(p.t, err)
	e, err := kv.Get(ctx, svc)
	if err != nil {
		return 0
	}
	var l contracts.ReleaseLedgerV1
	if _, err := p.kr.Open(e.Value(), contracts.SubjectLedger, p.now(), &l); err != nil {
		return -1
	}
	return len(l.Releases)
}

// poll calls cond until it holds, failing the test after within.
func poll(ctx context.Context, t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("timed out after %s waiting for %s", within, what)
		case <-tick.C:
		}
	}
}

func checkOf(d contracts.DecisionV1, name string) (contracts.CheckResult, bool) {
	for _, c := range d.Checks {
		if c.Name == name {
			return c, true
		}
	}
	return contracts.CheckResult{}, false
}

func describe(d contracts.DecisionV1) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s failed=%v", d.Verdict, d.FailedChecks)
	for _, c := range d.Checks {
		if !c.Passed {
			fmt.Fprintf(&b, "\n  %s: %s", c.Name, c.Reason)
		}
	}
	return b.String()
}
