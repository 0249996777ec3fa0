// Package chaos throws hostile input at the whole pipeline in one process,
// the seven services as `agentk up` runs them on an embedded NATS, and
// checks that nothing stops a service and nothing accepted is left without
// a state (issue 19, docs/reliability.md "Hostile input and poison messages").
package chaos

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agentk/cmd/agentk/stack"
	"agentk/contracts"
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

// world is the pipeline under attack.
type world struct {
	tb      testing.TB
	inc     *incident.Incident
	fab     *fabric.Fabric
	admin   *bus.Conn
	running *stack.Running
	ingest  string
	token   string
	// decisions receives the incident id of every decision the gate signs.
	decisions chan string
}

func serve(tb testing.TB, h http.Handler) string {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(tb, err)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(l) }()
	tb.Cleanup(func() { _ = srv.Close() })
	return "http://" + l.Addr().String()
}

// liveIncident writes the deployment-class corpus scenario as if it fired
// now, so that the pipeline's clock is the wall clock.
func liveIncident(tb testing.TB) *incident.Incident {
	tb.Helper()
	var sc corpusgen.Scenario
	for _, s := range corpusgen.Scenarios() {
		if s.ID == "bad-release-01" {
			sc = s
		}
	}
	require.NotEmpty(tb, sc.ID)
	sc.ID = "chaos-bad-release"
	sc.Now = time.Now().UTC().Truncate(time.Second)
	dir := tb.TempDir()
	require.NoError(tb, corpusgen.Write(dir, []corpusgen.Scenario{sc}))
	inc, err := incident.Load(filepath.Join(dir, sc.ID))
	require.NoError(tb, err)
	return inc
}

// newWorld starts every service over a fresh embedded NATS, with a fake
// SigNoz serving one deployment-class incident and a fake Slack.
func newWorld(ctx context.Context, tb testing.TB) *world {
	tb.Helper()
	tb.Setenv("AGENTK_OTEL_DISABLED", "1")
	inc := liveIncident(tb)
	w := &world{tb: tb, inc: inc, ingest: freeport.Addr(tb), token: "chaos-ingest-token", decisions: make(chan string, 8192)}
	sig := serve(tb, fakesignoz.New(inc, fakesignoz.Options{APIKey: "chaos-key"}))
	slack := fakeslack.New("xoxb-chaos")
	tb.Cleanup(slack.Close)
	env := map[string]string{
		"AGENTK_OTEL_DISABLED":             "1",
		"AGENTK_SIGNOZ_URL":                sig,
		"AGENTK_SIGNOZ_API_KEY":            "chaos-key",
		"AGENTK_INVESTIGATOR":              "rules",
		"AGENTK_INVESTIGATIONS_PARALLEL":   "4",
		"AGENTK_INVESTIGATION_TIMEOUT":     "20s",
		"AGENTK_INGEST_MAX_INVESTIGATIONS": "8",
		"AGENTK_INGEST_DISPATCH_INTERVAL":  "500ms",
		"AGENTK_BRIDGE_ADDR":               freeport.Addr(tb),
		"AGENTK_SLACK_API_URL":             slack.APIURL(),
		"AGENTK_SLACK_BOT_TOKEN":           "xoxb-chaos",
		"AGENTK_SLACK_SIGNING_SECRET":      "chaos-slack-signing-secret",
		"AGENTK_SLACK_CHANNEL":             "#agentk-chaos",
		"AGENTK_SLACK_RESPONSE_URL_PREFIX": slack.ResponseURLPrefix(),
		"AGENTK_APPROVERS":                 "slack:UCHAOS=oncall",
		"AGENTK_SANDBOX_SERVICES":          strings.Join(inc.SandboxScope(), ","),
		"AGENTK_DEPLOYER_SERVICES":         strings.Join(inc.SandboxScope(), ","),
		"AGENTK_DEPLOYER_RUNTIME":          "dryrun",
		"AGENTK_INCIDENT_DIR":              inc.Dir,
		"AGENTK_COMPOSE_PROJECT":           inc.Releases.Project,
		"AGENTK_INGEST_ADDR":               w.ingest,
		"AGENTK_INGEST_TOKEN":              w.token,
	}
	log := slog.New(slog.DiscardHandler)
	if os.Getenv("AGENTK_TEST_LOG") == "1" {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	}
	f, err := fabric.StartEmbedded(ctx, fabric.Options{DataDir: tb.TempDir(), Logger: log})
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = f.Close() })
	w.fab = f
	w.admin, err = f.Admin(ctx)
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = w.admin.Close() })
	sub, err := w.admin.NATS().Subscribe(contracts.SubjectDecision, func(m *nats.Msg) {
		var d contracts.DecisionV1
		if _, err := f.Keyring().Open(m.Data, contracts.SubjectDecision, time.Now(), &d); err == nil {
			select {
			case w.decisions <- d.IncidentID:
			default: // nobody is counting (the fuzz target): drop
			}
		}
	})
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = sub.Unsubscribe() })
	require.NoError(tb, w.admin.NATS().Flush())
	w.running, err = stack.StartSupervised(ctx, nil, func(ctx context.Context, role string) (service.Deps, error) {
		return f.Deps(ctx, role, nil, func(k string) string { return env[k] })
	}, log, 30*time.Second, stack.Supervision{MinBackoff: 100 * time.Millisecond})
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = w.running.Stop() })
	return w
}

// post sends body as SigNoz does and returns the status and response.
func (w *world) post(ctx context.Context, body []byte) (int, []byte) {
	w.tb.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+w.ingest+"/v1/alerts", bytes.NewReader(body))
	require.NoError(w.tb, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+w.token)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(w.tb, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, b
}

// filed is the ingester's 2xx body.
type filed struct {
	Alerts []struct {
		IncidentID string `json:"incident_id"`
		Outcome    string `json:"outcome"`
	} `json:"alerts"`
}

// stopped lists the services that are not ready or were restarted.
func (w *world) stopped() []string {
	var out []string
	for _, s := range w.running.Health.Statuses() {
		if !s.Ready || s.Restarts > 0 {
			out = append(out, s.Service+": "+s.LastError)
		}
	}
	return out
}

// knownStates are the states of docs/lifecycle.md.
var knownStates = map[string]bool{
	"queued": true, "investigating": true, "decided": true, "resolved": true, "no_data": true, "refused": true,
}

// stateOf returns the index state of incident id ("" when it has no record).
func (w *world) stateOf(ctx context.Context, id string) string {
	kv, err := w.admin.KeyValue(ctx, topology.BucketIncidents)
	require.NoError(w.tb, err)
	e, err := kv.Get(ctx, id)
	if err != nil {
		return ""
	}
	var rec struct {
		State string `json:"state"`
	}
	require.NoError(w.tb, json.Unmarshal(e.Value(), &rec))
	return rec.State
}

// outcomesWithRecord are the outcomes after which the incident has a record.
var outcomesWithRecord = map[string]bool{
	"opened": true, "queued": true, "attached": true, "duplicate": true, "resolved": true, "partly_resolved": true, "no_data": true,
}
