package mcpbackend_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"agentk/services/sandbox/internal/mcpbackend"
	"agentk/services/sandbox/internal/signoz"
	"agentk/services/sandbox/internal/tools"

	"github.com/stretchr/testify/require"
)

// The kind of a query is what the official server gets to see of it once the
// incident's own values are taken out: the request type, and per query its
// signal, whether it steps, its filter with every literal a "?" or "N" and
// every attribute key that is not a span's own column an "attr", its
// aggregations, group-by, select fields and order written the same way.
// The incidents differ in their attribute keys (quality, retry and peer keys
// read off their telemetry) and values; the sandbox's query kinds do not. A
// rule's series keeps its signal and aggregations, with the rule's own filter
// and latency aggregation (the user's) left out.
var (
	kindString = regexp.MustCompile(`'(?:[^'\\]|\\.)*'`)
	kindNumber = regexp.MustCompile(`\b\d+(\.\d+)?\b`)
	kindList   = regexp.MustCompile(`\((\?|N)(, (\?|N))*\)`)
	kindWord   = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_.\-]*`)
	// kindRuleAgg is a rule's own aggregation of its latency.
	kindRuleAgg = regexp.MustCompile(`\b(p\d+|avg|max)\(`)
	// kindKept are the span's and log's own columns, the filter's words and
	// the aggregation functions: written as they are.
	kindKept = map[string]bool{}
)

func init() {
	for _, w := range strings.Fields(`service.name name kind kind_string has_error duration_nano timestamp trace_id span_id
		parent_span_id status_code status_message severity_text body AND OR NOT IN EXISTS LIKE ILIKE CONTAINS N
		count count_distinct sum avg min max rate p50 p75 p90 p95 p99`) {
		kindKept[w] = true
	}
}

func kindKey(k string) string {
	if kindKept[k] {
		return k
	}
	return "attr"
}

func kindExpr(e string) string {
	e = kindString.ReplaceAllString(e, "?")
	e = kindWord.ReplaceAllStringFunc(e, kindKey)
	e = kindNumber.ReplaceAllString(e, "N")
	return kindList.ReplaceAllString(e, "(…)")
}

// queryKind is req's kind; rule says it is a series of the alert's rule.
func queryKind(req signoz.QueryRangeRequest, rule bool) string {
	parts := []string{req.RequestType}
	for _, q := range req.CompositeQuery.Queries {
		s := q.Spec
		var aggs, group, sel, order []string
		for _, a := range s.Aggregations {
			e := kindExpr(a.Expression)
			if rule {
				e = kindRuleAgg.ReplaceAllString(e, "agg(")
			}
			aggs = append(aggs, e)
		}
		for _, f := range s.GroupBy {
			group = append(group, kindKey(f.Name))
		}
		for _, f := range s.SelectFields {
			sel = append(sel, kindKey(f.Name))
		}
		for _, o := range s.Order {
			order = append(order, kindExpr(o.Key.Name)+" "+o.Direction)
		}
		filter := kindExpr(s.Filter.Expression)
		if rule {
			filter = "the rule's"
		}
		parts = append(parts, fmt.Sprintf("%s %s step=%t limit=%t filter=[%s] aggregations=%v groupBy=%v select=%v order=%v having=[%s]",
			q.Type, s.Signal, s.StepInterval > 0, s.Limit > 0, filter, aggs, group, sel, order, kindExpr(s.Having.Expression)))
	}
	return strings.Join(parts, " | ")
}

// recordedKinds are the kinds of the queries the official server answered
// in both fixtures.
func recordedKinds(t *testing.T) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	add := func(args json.RawMessage, rule bool) {
		var a struct {
			Query signoz.QueryRangeRequest `json:"query"`
		}
		require.NoError(t, json.Unmarshal(args, &a))
		out[queryKind(a.Query, rule)] = true
	}
	for _, l := range readOfficial(t) {
		add(l.Arguments, false)
	}
	for _, l := range readStages(t) {
		if l.Tool == mcpbackend.ToolQuery {
			add(l.Arguments, l.Stage == "rule")
		}
	}
	return out
}

// kindsSent answers the overview's queries from SigNoz (the fake) directly
// and keeps the kind of each.
type kindsSent struct {
	direct *signoz.Client
	c      tools.Call
	mu     sync.Mutex
	rule   map[string]bool // the rule's series, by request JSON
	kinds  map[string]bool
}

func (k *kindsSent) QueryRange(ctx context.Context, req signoz.QueryRangeRequest) (signoz.Result, error) {
	b, _ := json.Marshal(req)
	k.mu.Lock()
	k.kinds[queryKind(req, k.rule[string(b)])] = true
	k.mu.Unlock()
	return k.direct.QueryRange(ctx, req)
}

func (k *kindsSent) Rule(ctx context.Context, id string) (signoz.RuleResult, error) {
	res, err := k.direct.Rule(ctx, id)
	if err != nil {
		return res, err
	}
	if rule, err := tools.ParseRule(res.Body); err == nil {
		k.mu.Lock()
		k.rule = requestSet(tools.RuleQueries(k.c, rule))
		k.mu.Unlock()
	}
	return res, nil
}

// overviewKinds are the kinds of the queries service_overview sends on
// every incident of every corpus (e2e/incidents*), with the incidents that
// send each.
func overviewKinds(t *testing.T) map[string][]string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join("..", "..", "..", "..", "e2e", "incidents*", "*", "incident.yaml"))
	require.NoError(t, err)
	require.Greater(t, len(dirs), 100, "the corpora")
	var mu sync.Mutex
	out := map[string][]string{}
	t.Run("corpora", func(t *testing.T) {
		for _, y := range dirs {
			dir := filepath.Dir(y)
			id := filepath.Base(filepath.Dir(dir)) + "/" + filepath.Base(dir)
			t.Run(id, func(t *testing.T) {
				t.Parallel()
				r := newOverviewRun(t, dir)
				sig := fakeSigNoz(t, r.inc)
				k := &kindsSent{direct: &signoz.Client{BaseURL: sig.URL, APIKey: key, HTTP: sig.Client()}, c: r.call(t), kinds: map[string]bool{}}
				r.evidence(t, k, k)
				mu.Lock()
				defer mu.Unlock()
				for kind := range k.kinds {
					out[kind] = append(out[kind], id)
				}
			})
		}
	})
	for _, ids := range out {
		slices.Sort(ids)
	}
	return out
}

// toRecord picks incidents (greedily, the one sending most of them first)
// whose overviews send every kind of missing.
func toRecord(missing map[string][]string) []string {
	need := maps.Clone(missing)
	var out []string
	for len(need) > 0 {
		n := map[string]int{}
		for _, ids := range need {
			for _, id := range ids {
				n[id]++
			}
		}
		best := ""
		for _, id := range slices.Sorted(maps.Keys(n)) {
			if n[id] > n[best] {
				best = id
			}
		}
		out = append(out, best)
		for kind, ids := range need {
			if slices.Contains(ids, best) {
				delete(need, kind)
			}
		}
	}
	return out
}

// TestEveryKindOfQueryWasAnsweredByTheOfficialServer: every kind of query
// (queryKind) service_overview sends on any corpus incident is one the
// official server answered in a fixture. The fixtures' own tests replay
// only the incidents recorded, so a query a change adds that only other
// incidents send (the calls to a slow dependency placing the onset, the
// latency origin's spans, an operation's onset spans) went unanswered by the
// official server without a test noticing. The message names incidents to
// add to stagesIncidents before re-recording (testdata/README.md).
func TestEveryKindOfQueryWasAnsweredByTheOfficialServer(t *testing.T) {
	if testing.Short() {
		t.Skip("runs service_overview on every corpus incident; skipped with -short")
	}
	t.Parallel()
	recorded := recordedKinds(t)
	sent := overviewKinds(t)
	missing := map[string][]string{}
	for kind, ids := range sent {
		if !recorded[kind] {
			missing[kind] = ids
		}
	}
	var msg strings.Builder
	for _, kind := range slices.Sorted(maps.Keys(missing)) {
		ids := missing[kind]
		fmt.Fprintf(&msg, "\n- %s\n  sent on %d incidents, e.g. %s", kind, len(ids), ids[0])
	}
	if len(missing) > 0 {
		t.Fatalf("%d kinds of query the overview sends that the official server never answered; add %v to stagesIncidents and re-record (testdata/README.md):%s",
			len(missing), toRecord(missing), msg.String())
	}
}
