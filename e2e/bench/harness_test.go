// Package bench holds agentk's cross-service benchmarks: each figure is
// measured beside a baseline taken in the same run on the same machine.
// `make bench` runs them (scripts/bench.sh) and writes docs/bench/latest.md.
package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"agentk/cmd/agentk/stack"
	"agentk/contracts/envelope"
	"agentk/contracts/incident"
	"agentk/platform/fabric"
	"agentk/platform/freeport"
	"agentk/platform/service"
	"agentk/services/bridge/fakeslack"
	"agentk/services/investigator/scripted"
	"agentk/services/sandbox/fakesignoz"
)

// corpus is the recorded incident corpus, relative to this package.
const corpus = "../incidents"

func loadIncident(tb testing.TB, id string) *incident.Incident {
	tb.Helper()
	inc, err := incident.Load(filepath.Join(corpus, id))
	if err != nil {
		tb.Fatal(err)
	}
	return inc
}

// serve starts h on a loopback port and returns its base URL.
func serve(tb testing.TB, h http.Handler) string {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(l) }()
	tb.Cleanup(func() { _ = srv.Close() })
	return "http://" + l.Addr().String()
}

// embedded starts an embedded fabric in a temporary folder.
func embedded(tb testing.TB) *fabric.Fabric {
	tb.Helper()
	f, err := fabric.StartEmbedded(context.Background(), fabric.Options{DataDir: tb.TempDir()})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = f.Close() })
	return f
}

// pipeline is every agentk service running over one embedded fabric against
// one incident's fake SigNoz and a scripted model, each answering after its
// injected latency (none by default).
type pipeline struct {
	f           *fabric.Fabric
	ingestURL   string
	ingestURLs  []string // one per replica; ingestURL is the first
	ingestToken string
	inc         *incident.Incident
	// signoz is the fake SigNoz as the sandbox reaches it (latency included),
	// at signozURL; model counts the scripted model's turns.
	signoz    *delayed
	signozURL string
	fake      *fakesignoz.Server
	model     *delayed
	// slack is the fake Slack every bridge posts to; bridgeURLs has each
	// replica's interactions endpoint; now is the services' clock.
	slack      *fakeslack.Server
	bridgeURLs []string
	now        func() time.Time
	// deployers has one entry per deployer replica, in replica order.
	deployers []*deployerReplica
}

// latencies are what the pipeline's outside services take to answer.
type latencies struct {
	query, turn time.Duration // one SigNoz query, one model turn
}

// delayed serves h, answering requests to path after d (the request's end
// cancels the wait), and counts them.
type delayed struct {
	h    http.Handler
	path string
	d    time.Duration
	n    atomic.Int64
}

func (d *delayed) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == d.path {
		d.n.Add(1)
		if d.d > 0 {
			t := time.NewTimer(d.d)
			select {
			case <-t.C:
			case <-r.Context().Done():
				t.Stop()
				return
			}
		}
	}
	d.h.ServeHTTP(w, r)
}

// queryPath is the SigNoz endpoint the sandbox queries.
const queryPath = "/api/v5/query_range"

// startPipeline starts the seven services as a replay does (dry-run deployer,
// fake Slack), but keeps them up for many alerts: the ingester admits every
// incident at once.
func startPipeline(tb testing.TB, inc *incident.Incident, persona string, lat latencies) *pipeline {
	tb.Helper()
	return startReplicas(tb, inc, persona, lat, 1)
}

// startReplicas is startPipeline with n replicas of every stateless service
// (ingester, sandbox, investigator, reviewer, gate, bridge), each on its own
// connection as a separate process would be, sharing one durable consumer
// per handler. With n > 1 two deployers run beside them, each on its own:
// the one holding the lease consumes approvals and the other stands by to
// take over (docs/deploy.md), and the decision-spent CAS and the cooldown KV
// still keep every decision acted on once. p.ingestURLs has one webhook URL
// per replica.
func startReplicas(tb testing.TB, inc *incident.Incident, persona string, lat latencies, n int) *pipeline {
	tb.Helper()
	return startReplicasOn(tb, embedded(tb), inc, persona, lat, n)
}

// startReplicasOn is startReplicas over the fabric f.
func startReplicasOn(tb testing.TB, f *fabric.Fabric, inc *incident.Incident, persona string, lat latencies, n int) *pipeline {
	tb.Helper()
	set := replicaSet{stateless: n}
	if n > 1 {
		set.deployers = 2
	}
	return startSet(tb, f, inc, persona, lat, set)
}

// replicaSet is what startSet runs.
type replicaSet struct {
	// stateless is the number of replicas of every stateless service.
	stateless int
	// deployers is the number of deployers, each started on its own (as a
	// process of its own would be); 0 runs one deployer in the first
	// replica's set, as a single agentk process does.
	deployers int
	// env is added to every replica's configuration.
	env map[string]string
}

// startSet starts set's replicas over the fabric f.
func startSet(tb testing.TB, f *fabric.Fabric, inc *incident.Incident, persona string, lat latencies, set replicaSet) *pipeline {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	tb.Cleanup(cancel)
	p := &pipeline{inc: inc, ingestToken: "bench-ingest-token-0123456789", f: f}
	env := p.env(tb, persona, lat)
	maps.Copy(env, set.env)
	p.now = service.Since(inc.Meta.Now)
	for range set.stateless {
		own := maps.Clone(env)
		own["AGENTK_BRIDGE_ADDR"] = freeport.Addr(tb)
		p.bridgeURLs = append(p.bridgeURLs, "http://"+own["AGENTK_BRIDGE_ADDR"]+"/slack/interactions")
		addr := freeport.Addr(tb)
		own["AGENTK_INGEST_ADDR"] = addr
		p.ingestURLs = append(p.ingestURLs, "http://"+addr+"/v1/alerts")
		var roles []string // every service
		if set.deployers > 0 {
			roles = statelessRoles()
		}
		p.startOne(ctx, tb, roles, own)
	}
	for range set.deployers {
		p.startOne(ctx, tb, []string{envelope.RoleDeployer}, env)
	}
	p.ingestURL = p.ingestURLs[0]
	return p
}

// startOne starts the services of roles (all when empty) with the
// configuration env, as one process would, and notes its deployer if it
// runs one.
func (p *pipeline) startOne(ctx context.Context, tb testing.TB, roles []string, env map[string]string) {
	tb.Helper()
	dep := &deployerReplica{}
	running, err := stack.Start(ctx, roles, func(ctx context.Context, role string) (service.Deps, error) {
		d, err := p.f.Deps(ctx, role, p.now, func(k string) string { return env[k] })
		if role == envelope.RoleDeployer {
			d.Logger = slog.New(dep)
		}
		return d, err
	}, slog.New(slog.DiscardHandler), 30*time.Second)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = running.Stop() })
	if len(roles) == 0 || slices.Contains(roles, envelope.RoleDeployer) {
		dep.running = running
		p.deployers = append(p.deployers, dep)
	}
}

// statelessRoles are every service but the deployer.
func statelessRoles() []string {
	var roles []string
	for _, e := range stack.Services() {
		if e.Role != envelope.RoleDeployer {
			roles = append(roles, e.Role)
		}
	}
	return roles
}

// env is the configuration every replica shares; it starts the fake SigNoz,
// the scripted model and the fake Slack they talk to.
func (p *pipeline) env(tb testing.TB, persona string, lat latencies) map[string]string {
	tb.Helper()
	inc := p.inc
	env := map[string]string{"AGENTK_OTEL_DISABLED": "1"}
	p.fake = fakesignoz.New(inc, fakesignoz.Options{APIKey: signozKey})
	p.signoz = &delayed{h: p.fake, path: queryPath, d: lat.query}
	sig := serve(tb, p.signoz)
	p.signozURL = sig
	env["AGENTK_SIGNOZ_URL"], env["AGENTK_SIGNOZ_BASE_URL"], env["AGENTK_SIGNOZ_API_KEY"] = sig, sig, signozKey

	p.model = &delayed{h: scripted.New(persona, scripted.WithModel("scripted-"+persona), scripted.WithTruth(inc.Meta.Expect.RootCause)), path: "/v1/chat/completions", d: lat.turn}
	model := serve(tb, p.model)
	env["AGENTK_INVESTIGATOR"] = "llm"
	env["AGENTK_LLM_PROVIDER"] = "custom"
	env["AGENTK_LLM_BASE_URL"] = model + "/v1"
	env["AGENTK_LLM_API_KEY"] = "scripted"
	env["AGENTK_LLM_MODEL"] = "scripted-" + persona
	env["AGENTK_LLM_PERSONA"] = persona

	slack := fakeslack.New("xoxb-bench-not-a-real-token")
	tb.Cleanup(slack.Close)
	p.slack = slack
	env["AGENTK_SLACK_API_URL"] = slack.APIURL()
	env["AGENTK_SLACK_BOT_TOKEN"] = "xoxb-bench-not-a-real-token"
	env["AGENTK_SLACK_SIGNING_SECRET"] = slackSecret
	env["AGENTK_SLACK_CHANNEL"] = "#agentk-bench"
	env["AGENTK_SLACK_RESPONSE_URL_PREFIX"] = slack.ResponseURLPrefix()
	env["AGENTK_APPROVERS"] = "slack:UBENCH=bench"

	scope := inc.SandboxScope()
	env["AGENTK_SANDBOX_SERVICES"] = strings.Join(scope, ",")
	env["AGENTK_DEPLOYER_SERVICES"] = strings.Join(scope, ",")
	env["AGENTK_DEPLOYER_RUNTIME"] = "dryrun"
	env["AGENTK_INCIDENT_DIR"] = inc.Dir
	env["AGENTK_COMPOSE_PROJECT"] = inc.Releases.Project

	env["AGENTK_INGEST_TOKEN"] = p.ingestToken
	env["AGENTK_INGEST_MAX_INVESTIGATIONS"] = "1000000"
	return env
}

// slackSecret is the bridges' Slack signing secret.
const slackSecret = "bench-signing-secret-0123456789"

// signozKey is the fake SigNoz's API key.
const signozKey = "bench-ro"

// alertBody is the incident's webhook body made into a new incident: rule i
// (the ingester groups by service and rule) and fresh fingerprints.
func alertBody(tb testing.TB, raw []byte, i int) []byte {
	tb.Helper()
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		tb.Fatal(err)
	}
	alerts, _ := body["alerts"].([]any)
	for j, a := range alerts {
		m, _ := a.(map[string]any)
		labels, _ := m["labels"].(map[string]any)
		if labels == nil {
			labels = map[string]any{}
			m["labels"] = labels
		}
		rule, _ := labels["ruleId"].(string)
		labels["ruleId"] = fmt.Sprintf("%sbench%d", rule, i)
		m["fingerprint"] = fmt.Sprintf("bench%08x%04x", i, j)
	}
	out, err := json.Marshal(body)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// post delivers one webhook body and returns the incident ids the ingester filed.
func (p *pipeline) post(tb testing.TB, body []byte) []string {
	tb.Helper()
	return p.postTo(tb, p.ingestURL, body)
}

// postTo is post to the ingester at url.
func (p *pipeline) postTo(tb testing.TB, url string, body []byte) []string {
	tb.Helper()
	ids, err := p.send(url, body)
	if err != nil {
		tb.Fatal(err)
	}
	return ids
}

// send delivers one webhook body to the ingester at url and returns the
// incident ids it filed.
func (p *pipeline) send(url string, body []byte) ([]string, error) {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+p.ingestToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("ingester: %s: %s", resp.Status, b)
	}
	var r struct {
		Alerts []struct {
			IncidentID string `json:"incident_id"`
		} `json:"alerts"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, err
	}
	var ids []string
	for _, a := range r.Alerts {
		if a.IncidentID != "" && !slices.Contains(ids, a.IncidentID) {
			ids = append(ids, a.IncidentID)
		}
	}
	return ids, nil
}

// percentiles reports p50 and p99 of lat in milliseconds under the given prefix.
func percentiles(b *testing.B, prefix string, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(lat[len(lat)/2]), prefix+"p50-ms")
	b.ReportMetric(ms(lat[min(len(lat)-1, len(lat)*99/100)]), prefix+"p99-ms")
}
