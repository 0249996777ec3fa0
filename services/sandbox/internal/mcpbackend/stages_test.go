package mcpbackend_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/contracts/incident"
	"agentk/services/sandbox/internal/compact"
	"agentk/services/sandbox/internal/config"
	"agentk/services/sandbox/internal/executor"
	"agentk/services/sandbox/internal/mcpbackend"
	"agentk/services/sandbox/internal/signoz"
	"agentk/services/sandbox/internal/tools"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nats-io/nkeys"
	"github.com/stretchr/testify/require"
)

// stagedCorpora are the corpora replayed through the official server and
// compared with the direct route: every one (e2e/incidents*), since which
// stages and kinds of query an overview reaches (the origin of the failures,
// the failing traces of the examined services, the alert's own rule, the
// calls to a slow dependency) depends on the incident.
const stagedCorpora = "incidents*"

// stagesFixture holds what the official server answered to the queries of
// those later stages and to the rule read (signoz_get_alert), one line per
// call: {"incident", "stage", "tool", "arguments", "result"}. Recorded by
// TestOverviewThroughTheOfficialServer with AGENTK_TEST_RECORD=1; checked in
// CI by TestOfficialAnswersOfTheLaterStages.
var stagesFixture = filepath.Join("testdata", "official-answers-stages.jsonl.gz")

// stagesIncidents are the incidents recorded into stagesFixture: an origin
// two hops down, a trap with two origins, a rule that places the onset, a
// queue consumer whose lag the overview measures (its producer and consumer
// spans), and the incidents that send the kinds of query those four do not
// (TestEveryKindOfQueryWasAnsweredByTheOfficialServer): in-span retries with
// a quality key's onset spans, a slow dependency's calls placing the onset
// with a latency origin, an operation's onset spans, a rule's latency series,
// a rule's count series, the attribute sample a Micrometer client's
// spans send (heldout5's twin), and a failing dependency's calls by call
// key and version (new_calls_*: a database's, heldout6's back-to-back
// release, an AWS SDK service's, heldout7's throttled-table twin, and a
// Google Cloud client library's, heldout8's Cloud Storage twin), and two of
// heldout10's, which send two kinds no other recorded incident sends (an
// operation's onset spans under an attribute filter; a per-minute count of
// the service's spans by name), and heldout13's OpenSearch twin, whose slow
// dependency's calls before and since the release are read whole
// (sent_before_*, sent_since_*: facts.SentChanges), and a surge whose kept
// entry spans rose, for which the overview reads the service's logged trace
// ids and the coverage samples (logged_*: facts.LoggedArrivals), and
// heldout12's exam-start surge, whose consistent share of the traces is
// read and then the calls to each peer within it (consistent_peer_calls:
// facts.ConsistentPeers).
var stagesIncidents = map[string]string{
	"cx-mobile-edge-fare-cache-two-hops":                      "incidents-culprit",
	"cx-notify-hub-smtp-down-template-release":                "incidents-culprit",
	"rule-error-logs-release-ledger":                          "incidents-rule",
	"mesh-mailer-lag-campaign-flood":                          "incidents-mesh",
	"ho2-inspan-retries-release-menu-writer":                  "incidents-heldout2",
	"hw-prompt-verbose-faq-bot":                               "incidents-handwritten",
	"ho3-config-amend-rpc-manifest-svc":                       "incidents-heldout3",
	"rule-p95-lags-errors-stale-release-pay":                  "incidents-rule",
	"rule-refusals-count-prompt-answer-bot":                   "incidents-rule",
	"fh5-twin-clearing-outage-after-release-payments-gateway": "incidents-heldout5-twins",
	"kf6-back-to-back-slots-warehouse-api":                    "incidents-heldout6",
	"lm7-twin-ddb-throttle-after-rollout-entitlements-api":    "incidents-heldout7-twins",
	"qh8-twin-gcs-backend-error-receipts-go":                  "incidents-heldout8-twins",
	"kw10-manifest-key-id-ota-svc":                            "incidents-heldout10",
	"kw10-twin-noisy-node-fast-fleet-api":                     "incidents-heldout10-twins",
	"pr13tw-trap-opensearch-yellow-ratio-catalog":             "incidents-heldout13-twins",
	"hw-newsletter-surge-storefront":                          "incidents-handwritten",
	"pr12-trap-exam-start-surge-exam-session":                 "incidents-heldout12",
}

type stageLine struct {
	Incident string `json:"incident"`
	// Stage is "rule" (the rule's read and its series) or "later" (the
	// overview's stages after the first: quality, origin, propagation).
	Stage string `json:"stage"`
	// Filter is the query's filter, for a reader of the file.
	Filter    string          `json:"filter,omitempty"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
	Result    json.RawMessage `json:"result"`
}

// overviewRun is one incident's service_overview through the real executor.
type overviewRun struct {
	inc   *incident.Incident
	alert contracts.AlertV1
	now   time.Time
}

func newOverviewRun(t *testing.T, dir string) overviewRun {
	t.Helper()
	inc, err := incident.Load(dir)
	require.NoError(t, err)
	var a struct {
		Alerts []struct {
			Labels       map[string]string `json:"labels"`
			StartsAt     time.Time         `json:"startsAt"`
			GeneratorURL string            `json:"generatorURL"`
		} `json:"alerts"`
	}
	require.NoError(t, json.Unmarshal(inc.AlertJSON, &a))
	first := a.Alerts[0]
	return overviewRun{inc: inc, now: inc.Meta.Now, alert: contracts.AlertV1{IncidentID: "inc-" + inc.Meta.Service, Status: contracts.AlertFiring,
		Service: inc.Meta.Service, StartsAt: first.StartsAt, Labels: first.Labels, Links: contracts.AlertLinks{Generator: first.GeneratorURL}}}
}

func nkeySigner(t *testing.T) *envelope.Signer {
	t.Helper()
	kp, err := nkeys.CreateUser()
	require.NoError(t, err)
	seed, err := kp.Seed()
	require.NoError(t, err)
	s, err := envelope.NewSigner(seed)
	require.NoError(t, err)
	return s
}

type keptEvidence struct{ got []envelope.Envelope }

func (k *keptEvidence) RecordEvidence(_ context.Context, env envelope.Envelope, _ string) error {
	k.got = append(k.got, env)
	return nil
}

// evidence runs the alerted service's service_overview through the
// executor with q answering the queries and rules the rule read.
func (r overviewRun) evidence(t *testing.T, q executor.Querier, rules executor.RuleReader) contracts.EvidenceV1 {
	t.Helper()
	ing, inv, sbx := nkeySigner(t), nkeySigner(t), nkeySigner(t)
	kr, err := envelope.NewKeyring(
		envelope.KeyEntry{KeyID: ing.KeyID(), Role: envelope.RoleIngester},
		envelope.KeyEntry{KeyID: inv.KeyID(), Role: envelope.RoleInvestigator},
		envelope.KeyEntry{KeyID: sbx.KeyID(), Role: envelope.RoleSandbox})
	require.NoError(t, err)
	a, err := ing.SealJSON(contracts.SubjectAlert, r.alert, r.now, 0)
	require.NoError(t, err)
	args, _ := json.Marshal(map[string]string{"service": r.inc.Meta.Service})
	call, err := inv.SealJSON(contracts.SubjectToolCall, contracts.ToolCallV1{CallID: "c1", InvestigationID: "inv-1", IncidentID: r.alert.IncidentID,
		Tool: contracts.ToolServiceOverview, Arguments: args, Alert: a.Marshal()}, r.now, 0)
	require.NoError(t, err)
	ex := &executor.Executor{Keyring: kr, Signer: sbx, Query: q, Record: &keptEvidence{}, Now: func() time.Time { return r.now },
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Limits: tools.DefaultLimits(config.DefaultExclude),
		Compact: compact.DefaultLimits, LinkBase: "http://localhost:8080", MaxCalls: 5, Rules: rules}
	env, err := ex.Handle(context.Background(), call.Marshal())
	require.NoError(t, err)
	var reply contracts.ToolReplyV1
	_, err = kr.Open(env.Marshal(), contracts.SubjectToolReply, r.now, &reply)
	require.NoError(t, err)
	require.True(t, reply.OK, reply.Error)
	var ev contracts.EvidenceV1
	_, err = kr.Open(reply.Evidence, contracts.SubjectEvidence, r.now, &ev)
	require.NoError(t, err)
	return ev
}

// call is the overview's call as the executor validates it.
func (r overviewRun) call(t *testing.T) tools.Call {
	t.Helper()
	c, err := tools.Validate(contracts.ToolServiceOverview, json.RawMessage(`{"service":"`+r.inc.Meta.Service+`"}`), r.alert.StartsAt, r.now,
		tools.DefaultLimits(config.DefaultExclude))
	require.NoError(t, err)
	return c
}

// requestSet is qs's requests as JSON.
func requestSet(qs []tools.Query) map[string]bool {
	out := map[string]bool{}
	for _, q := range qs {
		b, _ := json.Marshal(q.Request)
		out[string(b)] = true
	}
	return out
}

// tape is the MCP route without the client, to the official server: it
// keeps what the server sent for every call after the first stage, and
// decodes it as the client does (mcpbackend.Decode).
type tape struct {
	cs       *mcp.ClientSession
	incident string
	c        tools.Call
	first    map[string]bool // the overview's first stage: not kept
	mu       sync.Mutex
	rule     map[string]bool // the rule's series
	lines    []stageLine
}

func (tp *tape) call(ctx context.Context, stage, tool string, args map[string]any) (mcpbackend.Reply, error) {
	res, err := tp.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return mcpbackend.Reply{}, err
	}
	if stage != "" {
		raw, _ := json.Marshal(res)
		a, _ := json.Marshal(args)
		tp.mu.Lock()
		filter := ""
		if q, ok := args["query"].(map[string]any); ok {
			var req signoz.QueryRangeRequest
			b, _ := json.Marshal(q)
			if json.Unmarshal(b, &req) == nil && len(req.CompositeQuery.Queries) > 0 {
				filter = req.CompositeQuery.Queries[0].Spec.Filter.Expression
			}
		}
		tp.lines = append(tp.lines, stageLine{Incident: tp.incident, Stage: stage, Filter: filter, Tool: tool, Arguments: a, Result: raw})
		tp.mu.Unlock()
	}
	return mcpbackend.Decode(tool, res)
}

func (tp *tape) QueryRange(ctx context.Context, req signoz.QueryRangeRequest) (signoz.Result, error) {
	b, _ := json.Marshal(req)
	var query any
	_ = json.Unmarshal(b, &query)
	tp.mu.Lock()
	stage := "later"
	switch {
	case tp.first[string(b)]:
		stage = ""
	case tp.rule[string(b)]:
		stage = "rule"
	}
	tp.mu.Unlock()
	reply, err := tp.call(ctx, stage, mcpbackend.ToolQuery, map[string]any{"query": query, "searchContext": "agentk sandbox: recording the official server's answers"})
	if err != nil {
		return signoz.Result{}, err
	}
	resp, err := signoz.Decode(reply.Payload)
	return signoz.Result{Body: reply.Payload, Response: resp, Notes: reply.Notes}, err
}

func (tp *tape) Rule(ctx context.Context, id string) (signoz.RuleResult, error) {
	reply, err := tp.call(ctx, "rule", mcpbackend.ToolGetAlert, map[string]any{"id": id, "searchContext": "agentk sandbox: recording the official server's answers"})
	if err != nil {
		return signoz.RuleResult{}, err
	}
	body := signoz.RuleBody(reply.Payload)
	if rule, err := tools.ParseRule(body); err == nil {
		tp.mu.Lock()
		tp.rule = requestSet(tools.RuleQueries(tp.c, rule))
		tp.mu.Unlock()
	}
	return signoz.RuleResult{Body: body}, nil
}

// TestOverviewThroughTheOfficialServer: with a build of the official server
// (AGENTK_TEST_OFFICIAL_MCP_COMMAND; CI cannot build it), every incident of
// stagedCorpora gets the same service_overview evidence through it (the
// client over stdio, as the sandbox runs it) as on the direct route: the
// facts (onset, origin, culprit, the alert rule's read) and the compact text.
// With AGENTK_TEST_RECORD=1 it also records stagesFixture.
func TestOverviewThroughTheOfficialServer(t *testing.T) {
	official := os.Getenv("AGENTK_TEST_OFFICIAL_MCP_COMMAND")
	if official == "" {
		t.Skip("set AGENTK_TEST_OFFICIAL_MCP_COMMAND to a build of signoz-mcp-server")
	}
	var recorded []stageLine
	dirs, err := filepath.Glob(filepath.Join("..", "..", "..", "..", "e2e", stagedCorpora, "*", "incident.yaml"))
	require.NoError(t, err)
	for _, y := range dirs {
		dir := filepath.Dir(y)
		id, corpus := filepath.Base(dir), filepath.Base(filepath.Dir(dir))
		t.Run(corpus+"/"+id, func(t *testing.T) {
			r := newOverviewRun(t, dir)
			sig := fakeSigNoz(t, r.inc)
			direct := &signoz.Client{BaseURL: sig.URL, APIKey: key, HTTP: sig.Client()}
			want := r.evidence(t, direct, direct)
			c, err := mcpbackend.New(mcpbackend.Config{Command: official, SigNozURL: sig.URL, APIKey: key, Timeout: 60 * time.Second})
			require.NoError(t, err)
			t.Cleanup(func() { _ = c.Close() })
			got := r.evidence(t, c, c)
			require.Equal(t, want.Facts, got.Facts, "facts")
			require.Equal(t, want.Compact, got.Compact, "compact")
			require.Equal(t, want.RawSHA256, got.RawSHA256, "raw hash")
			require.Equal(t, want.SourceNotes, withoutWarnings(got.SourceNotes), "source notes: the direct route's, and SigNoz's warnings")
			if os.Getenv("AGENTK_TEST_RECORD") == "" || stagesIncidents[id] != corpus {
				return
			}
			recorded = append(recorded, recordStages(t, official, sig.URL, r, id)...)
		})
	}
	if os.Getenv("AGENTK_TEST_RECORD") == "" || t.Failed() {
		return
	}
	f := createFixture(t, stagesFixture)
	enc := json.NewEncoder(f)
	enc.SetEscapeHTML(false)
	for _, l := range recorded {
		require.NoError(t, enc.Encode(l))
	}
	require.NoError(t, f.Close())
}

// withoutWarnings drops the notes that carry SigNoz's warnings: the direct
// route leaves them in the body, the MCP server moves them to a note.
func withoutWarnings(notes []contracts.SourceNote) []contracts.SourceNote {
	var out []contracts.SourceNote
	for _, n := range notes {
		if n.Kind != contracts.NoteBackendWarnings {
			out = append(out, n)
		}
	}
	return out
}

// recordStages runs r's overview once more through a tape to the official
// server and returns the lines it kept.
func recordStages(t *testing.T, official, sigURL string, r overviewRun, id string) []stageLine {
	t.Helper()
	cmd := exec.Command(official)
	cmd.Env = []string{"SIGNOZ_URL=" + sigURL, "SIGNOZ_API_KEY=" + key, "PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agentk-recorder", Version: "v1"}, nil).
		Connect(context.Background(), &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	require.NoError(t, err)
	defer cs.Close()
	c := r.call(t)
	tp := &tape{cs: cs, incident: id, c: c, first: requestSet(tools.PlanCall(c, "http://localhost:8080", tools.DefaultLimits(config.DefaultExclude)).Queries)}
	r.evidence(t, tp, tp)
	return tp.lines
}

// readStages reads stagesFixture.
func readStages(t *testing.T) []stageLine {
	t.Helper()
	f := openFixture(t, stagesFixture)
	defer f.Close()
	var out []stageLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 32<<20)
	for sc.Scan() {
		var l stageLine
		require.NoError(t, json.Unmarshal(sc.Bytes(), &l))
		out = append(out, l)
	}
	require.NoError(t, sc.Err())
	return out
}

// canonical is v as JSON with its objects' keys in order.
func canonical(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var anyv any
	require.NoError(t, json.Unmarshal(b, &anyv))
	b, err = json.Marshal(anyv)
	require.NoError(t, err)
	return string(b)
}

// replayed answers from stagesFixture what the official server answered,
// decoded as the client decodes it, and every other query (the first
// stage's) from the fake SigNoz directly.
type replayed struct {
	t      *testing.T
	direct *signoz.Client
	// first are the overview's first-stage queries, answered directly; any
	// other query the fixture does not hold fails the test.
	first   map[string]bool
	answers map[string]*mcp.CallToolResult
	rule    *mcp.CallToolResult
	mu      sync.Mutex
	used    map[string]bool
}

func (r *replayed) QueryRange(ctx context.Context, req signoz.QueryRangeRequest) (signoz.Result, error) {
	k := canonical(r.t, req)
	res := r.answers[k]
	if res == nil {
		if !r.first[k] {
			filter := ""
			if len(req.CompositeQuery.Queries) > 0 {
				filter = req.CompositeQuery.Queries[0].Spec.Filter.Expression
			}
			r.t.Errorf("a later-stage query the official server never answered (filter %q): re-record (testdata/README.md)", filter)
		}
		return r.direct.QueryRange(ctx, req)
	}
	r.mu.Lock()
	r.used[k] = true
	r.mu.Unlock()
	reply, err := mcpbackend.Decode(mcpbackend.ToolQuery, res)
	if err != nil {
		return signoz.Result{}, err
	}
	resp, err := signoz.Decode(reply.Payload)
	return signoz.Result{Body: reply.Payload, Response: resp, Notes: reply.Notes}, err
}

func (r *replayed) Rule(_ context.Context, _ string) (signoz.RuleResult, error) {
	if r.rule == nil {
		r.t.Errorf("a rule read the official server never answered: re-record (testdata/README.md)")
		return signoz.RuleResult{}, errors.New("no recorded rule read")
	}
	r.mu.Lock()
	r.used["rule"] = true
	r.mu.Unlock()
	reply, err := mcpbackend.Decode(mcpbackend.ToolGetAlert, r.rule)
	if err != nil {
		return signoz.RuleResult{}, err // SigNoz's 404 for a rule it does not have, as the server passed it on
	}
	return signoz.RuleResult{Body: signoz.RuleBody(reply.Payload)}, nil
}

// TestOfficialAnswersOfTheLaterStages: what the official server answered to
// the overview's later stages (the failing spans of the examined services
// and of the alerted one, their traces) and to the rule's read and series,
// on three incidents, gives the evidence the direct route gives: the same
// facts (origin, culprit candidates, the rule's onset), compact text, raw
// hash and notes (SigNoz's warnings aside). Every recorded answer is used:
// when the plan's queries change, re-record (testdata/README.md).
func TestOfficialAnswersOfTheLaterStages(t *testing.T) {
	t.Parallel()
	byIncident := map[string][]stageLine{}
	for _, l := range readStages(t) {
		byIncident[l.Incident] = append(byIncident[l.Incident], l)
	}
	require.Len(t, byIncident, len(stagesIncidents))
	for id, corpus := range stagesIncidents {
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			r := newOverviewRun(t, filepath.Join("..", "..", "..", "..", "e2e", corpus, id))
			sig := fakeSigNoz(t, r.inc)
			direct := &signoz.Client{BaseURL: sig.URL, APIKey: key, HTTP: sig.Client()}
			rp := &replayed{t: t, direct: direct, answers: map[string]*mcp.CallToolResult{}, used: map[string]bool{}, first: map[string]bool{}}
			for _, q := range tools.PlanCall(r.call(t), "http://localhost:8080", tools.DefaultLimits(config.DefaultExclude)).Queries {
				rp.first[canonical(t, q.Request)] = true
			}
			stages := map[string]int{}
			for _, l := range byIncident[id] {
				var res mcp.CallToolResult
				require.NoError(t, json.Unmarshal(l.Result, &res))
				stages[l.Stage+" "+l.Tool]++
				if l.Tool == mcpbackend.ToolGetAlert {
					rp.rule = &res
					continue
				}
				var args struct {
					Query signoz.QueryRangeRequest `json:"query"`
				}
				require.NoError(t, json.Unmarshal(l.Arguments, &args))
				rp.answers[canonical(t, args.Query)] = &res
			}
			if r.inc.RuleJSON != nil {
				require.NotNil(t, rp.rule, "the rule's read is recorded")
				// The official server's own change to SigNoz's body, which
				// signoz.RuleBody takes out on both routes.
				reply, err := mcpbackend.Decode(mcpbackend.ToolGetAlert, rp.rule)
				require.NoError(t, err)
				require.Contains(t, string(reply.Payload), `"webUrl":`)
				require.NotEqual(t, string(reply.Payload), string(r.inc.RuleJSON))
				require.Equal(t, string(signoz.RuleBody(r.inc.RuleJSON)), string(signoz.RuleBody(reply.Payload)))
			}
			if id == "mesh-mailer-lag-campaign-flood" {
				// The consumer lag's query (its producer and consumer spans)
				// and the published arrivals' four (facts.PublishedArrivals:
				// the publishes, the deliveries, the redelivered entry spans
				// and their errors).
				require.Equal(t, 5, stages["later "+mcpbackend.ToolQuery], "the consumer lag's query and the published arrivals' are recorded")
			} else {
				require.GreaterOrEqual(t, stages["later "+mcpbackend.ToolQuery], 4, "the origin's and the propagation's queries are recorded")
			}
			want := r.evidence(t, direct, direct)
			got := r.evidence(t, rp, rp)
			require.Equal(t, want.Facts, got.Facts, "facts")
			if id == "mesh-mailer-lag-campaign-flood" {
				require.NotNil(t, got.Facts.ConsumerLag, "the lag measured from the official server's answer")
			}
			require.Equal(t, want.Compact, got.Compact, "compact")
			require.Equal(t, want.RawSHA256, got.RawSHA256, "raw hash")
			require.Equal(t, want.SourceNotes, withoutWarnings(got.SourceNotes), "source notes")
			asked := len(rp.answers)
			if rp.rule != nil {
				asked++
			}
			require.Equal(t, asked, len(rp.used), "every recorded answer was asked for: if the plan changed, re-record")
		})
	}
}
