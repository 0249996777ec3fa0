package corpusgen

import (
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"sort"
	"time"
)

// span and logLine are written field for field as INCIDENT-FORMAT.md names them.
// e2e/worldgen's SpanRec and LogRec are the same rows, written again on
// purpose: worldgen shares no code with corpusgen (issue 18), so a world
// corpus measures the pipeline on telemetry these rules were not written against.
// Neither uses contracts/incident.Span, whose reader (incident.Load) the
// corpora test: a writer of its own, with the timestamp as the text the file
// holds, is what makes that test independent of the reader.
type span struct {
	Timestamp     string            `json:"timestamp"`
	TraceID       string            `json:"trace_id"`
	SpanID        string            `json:"span_id"`
	ParentSpanID  string            `json:"parent_span_id"`
	Name          string            `json:"name"`
	Kind          int               `json:"kind"`
	DurationNano  int64             `json:"duration_nano"`
	HasError      bool              `json:"has_error"`
	StatusCode    int               `json:"status_code"`
	StatusMessage string            `json:"status_message"`
	Resource      map[string]string `json:"resource"`
	Attributes    map[string]any    `json:"attributes"`
	at            time.Time
}

type logLine struct {
	Timestamp    string            `json:"timestamp"`
	SeverityText string            `json:"severity_text"`
	Body         string            `json:"body"`
	TraceID      string            `json:"trace_id"`
	SpanID       string            `json:"span_id"`
	Resource     map[string]string `json:"resource"`
	Attributes   map[string]any    `json:"attributes"`
	at           time.Time
}

// OTLP span kinds.
const (
	kindInternal = 1
	kindServer   = 2
	kindClient   = 3
	kindConsumer = 5
)

type child struct {
	name  string
	kind  int
	share float64 // share of the parent's duration
	attrs map[string]any
}

type endpoint struct {
	name     string
	method   string
	route    string
	kind     int
	weight   int
	baseMs   float64
	children []child
}

// profiles are the services' request shapes.
var profiles = map[string][]endpoint{
	api: {
		{name: "POST /checkout", method: "POST", route: "/checkout", kind: kindServer, weight: 3, baseMs: 140, children: []child{
			{name: "pool.checkout", kind: kindInternal, share: 0.02, attrs: map[string]any{"db.system": "postgresql", "db.client.connection.pool.name": "orders"}},
			{name: "SELECT orders", kind: kindClient, share: 0.25, attrs: map[string]any{"db.system": "postgresql", "db.operation.name": "SELECT", "db.collection.name": "orders"}},
			{name: "POST /charge", kind: kindClient, share: 0.5, attrs: map[string]any{"peer.service": pay, "http.request.method": "POST", "server.address": "payments-api"}},
		}},
		{name: "GET /products", method: "GET", route: "/products", kind: kindServer, weight: 5, baseMs: 60, children: []child{
			{name: "SELECT products", kind: kindClient, share: 0.6, attrs: map[string]any{"db.system": "postgresql", "db.operation.name": "SELECT", "db.collection.name": "products"}},
		}},
		{name: "GET /cart", method: "GET", route: "/cart", kind: kindServer, weight: 2, baseMs: 35, children: nil},
	},
	worker: {
		{name: "process order", kind: kindConsumer, weight: 1, baseMs: 90, children: []child{
			{name: "pool.checkout", kind: kindInternal, share: 0.03, attrs: map[string]any{"db.system": "postgresql", "db.client.connection.pool.name": "orders"}},
			{name: "UPDATE orders", kind: kindClient, share: 0.5, attrs: map[string]any{"db.system": "postgresql", "db.operation.name": "UPDATE", "db.collection.name": "orders"}},
			{name: "POST /charge", kind: kindClient, share: 0.3, attrs: map[string]any{"peer.service": pay, "http.request.method": "POST", "server.address": "payments-api"}},
		}},
	},
	search: {
		{name: "GET /search", method: "GET", route: "/search", kind: kindServer, weight: 4, baseMs: 80, children: []child{
			{name: "ranking.profile.load", kind: kindInternal, share: 0.05, attrs: map[string]any{"ranking.profile": "default"}},
			{name: "search.index.query", kind: kindClient, share: 0.7, attrs: map[string]any{"db.system": "elasticsearch", "db.operation.name": "search"}},
		}},
		{name: "GET /suggest", method: "GET", route: "/suggest", kind: kindServer, weight: 2, baseMs: 25, children: []child{
			{name: "search.index.query", kind: kindClient, share: 0.7, attrs: map[string]any{"db.system": "elasticsearch", "db.operation.name": "suggest"}},
		}},
	},
	pay: {
		{name: "POST /charge", method: "POST", route: "/charge", kind: kindServer, weight: 1, baseMs: 70, children: []child{
			{name: "INSERT charges", kind: kindClient, share: 0.4, attrs: map[string]any{"db.system": "postgresql", "db.operation.name": "INSERT", "db.collection.name": "charges"}},
		}},
	},
	asst: {
		{name: "POST /ask", method: "POST", route: "/ask", kind: kindServer, weight: 1, baseMs: 900, children: []child{
			{name: "vectorstore.query", kind: kindClient, share: 0.05, attrs: map[string]any{"db.system": "qdrant", "db.collection.name": "help_docs"}},
			{name: "prompt.build", kind: kindInternal, share: 0.01, attrs: map[string]any{"prompt.template": "answer_v4"}},
			{name: "chat gpt-4o-mini", kind: kindClient, share: 0.85, attrs: map[string]any{"gen_ai.system": "openai", "gen_ai.request.model": "gpt-4o-mini"}},
			{name: "guardrail.check", kind: kindInternal, share: 0.02, attrs: map[string]any{"guardrail.policy": "on_topic"}},
		}},
	},
}

// rng is a deterministic source per incident.
func rng(id string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(id))
	s := h.Sum64()
	return rand.New(rand.NewPCG(s, s^0x9e3779b97f4a7c15))
}

func hexID(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.UintN(256))
	}
	return hex.EncodeToString(b)
}

func ts(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000Z") }

// lognormal returns a latency multiplier around 1 with a realistic right tail.
func lognormal(r *rand.Rand, sigma float64) float64 {
	return math.Exp(r.NormFloat64()*sigma - sigma*sigma/2)
}

// world is the state the generator threads through one incident.
type world struct {
	sc      Scenario
	r       *rand.Rand
	start   time.Time // first span
	onset   time.Time
	spans   []span
	logs    []logLine
	version map[string][]versionAt
}

type versionAt struct {
	version string
	from    time.Time
}

func (w *world) versionAt(svc string, t time.Time) string {
	v := ""
	for _, va := range w.version[svc] {
		if !va.from.After(t) {
			v = va.version
		}
	}
	return v
}

func (w *world) resource(svc string, t time.Time) map[string]string {
	return map[string]string{
		"service.name":           svc,
		"service.version":        w.versionAt(svc, t),
		"deployment.environment": "production",
		"host.name":              svc + "-7d9f8",
	}
}

func (w *world) affected(svc string) bool {
	if svc == w.sc.Service {
		return true
	}
	for _, c := range w.sc.CoServices {
		if c == svc {
			return true
		}
	}
	return false
}

func (w *world) fault() string {
	if w.sc.Fault != "" {
		return w.sc.Fault
	}
	return w.sc.Class
}

// rate is requests per minute of a service at t.
func (w *world) rate(svc string, t time.Time) float64 {
	base := map[string]float64{api: 9, worker: 4, search: 8, pay: 5, asst: 6}[svc]
	if !t.Before(w.onset) && w.affected(svc) && w.fault() == "traffic_surge" {
		return base * 6
	}
	if !t.Before(w.onset) && svc == pay && w.fault() == "retry_storm" {
		return base * 5
	}
	return base
}

func (w *world) log(svc string, t time.Time, sev, body, trace, spanID string, attrs map[string]any) {
	if attrs == nil {
		attrs = map[string]any{}
	}
	w.logs = append(w.logs, logLine{Timestamp: ts(t), SeverityText: sev, Body: body, TraceID: trace, SpanID: spanID,
		Resource: map[string]string{"service.name": svc, "service.version": w.versionAt(svc, t)}, Attributes: attrs, at: t})
}

func pick(r *rand.Rand, eps []endpoint) endpoint {
	total := 0
	for _, e := range eps {
		total += e.weight
	}
	n := r.IntN(total)
	for _, e := range eps {
		if n < e.weight {
			return e
		}
		n -= e.weight
	}
	return eps[0]
}

// request writes one request's spans (and any logs it causes).
func (w *world) request(svc string, t time.Time) {
	r := w.r
	ep := pick(r, profiles[svc])
	trace, root := hexID(r, 16), hexID(r, 8)
	dur := ep.baseMs * lognormal(r, 0.35)
	status, httpCode, msg := 0, 200, ""
	rootAttrs := map[string]any{}
	if ep.kind == kindServer {
		rootAttrs["http.request.method"] = ep.method
		rootAttrs["http.route"] = ep.route
	}
	childDur := make([]float64, len(ep.children))
	childErr := make([]string, len(ep.children))
	childAttrs := make([]map[string]any, len(ep.children))
	childCount := make([]int, len(ep.children))
	for i, c := range ep.children {
		childDur[i] = dur * c.share * lognormal(r, 0.3)
		childCount[i] = 1
		childAttrs[i] = map[string]any{}
		for k, v := range c.attrs {
			childAttrs[i][k] = v
		}
	}
	// Background noise: a rare, unrelated error.
	if r.Float64() < 0.004 {
		status, httpCode, msg = 2, 500, "context canceled"
	}
	faulty := !t.Before(w.onset) && w.affected(svc)
	if faulty {
		dur, status, httpCode, msg = w.applyFault(svc, ep, t, trace, root, dur, status, httpCode, msg, rootAttrs, childDur, childErr, childAttrs, childCount)
	}
	if httpCode != 200 || status == 2 {
		status = 2
	}
	if ep.kind == kindServer {
		rootAttrs["http.response.status_code"] = httpCode
	}
	w.spans = append(w.spans, span{Timestamp: ts(t), TraceID: trace, SpanID: root, Name: ep.name, Kind: ep.kind,
		DurationNano: int64(dur * 1e6), HasError: status == 2, StatusCode: status, StatusMessage: msg,
		Resource: w.resource(svc, t), Attributes: rootAttrs, at: t})
	off := 1.0
	for i, c := range ep.children {
		for k := 0; k < childCount[i]; k++ {
			ct := t.Add(time.Duration(off * 1e6))
			attrs := map[string]any{}
			for kk, v := range childAttrs[i] {
				attrs[kk] = v
			}
			if childCount[i] > 1 {
				attrs["http.request.resend_count"] = k
			}
			st, sm := 0, ""
			if childErr[i] != "" && (k < childCount[i]-1 || status == 2) {
				st, sm = 2, childErr[i]
			}
			w.spans = append(w.spans, span{Timestamp: ts(ct), TraceID: trace, SpanID: hexID(r, 8), ParentSpanID: root, Name: c.name, Kind: c.kind,
				DurationNano: int64(childDur[i] * 1e6), HasError: st == 2, StatusCode: st, StatusMessage: sm,
				Resource: w.resource(svc, ct), Attributes: attrs, at: ct})
			off += childDur[i]
		}
	}
	if status == 2 && !faulty && r.Float64() < 0.5 {
		w.log(svc, t.Add(time.Duration(dur*1e6)), "ERROR", fmt.Sprintf("request failed: %s", msg), trace, root, map[string]any{"http.route": ep.route})
	}
}

func childIndex(ep endpoint, name string) int {
	for i, c := range ep.children {
		if c.name == name {
			return i
		}
	}
	return -1
}

// faultReq is one request after the onset, as a fault changes it: its
// service, endpoint, time and ids, the root span's duration, status, HTTP
// code, message and attributes, and its children's durations, errors,
// attributes and counts.
type faultReq struct {
	svc         string
	ep          endpoint
	t, logAt    time.Time
	trace, root string
	dur         float64
	status      int
	code        int
	msg         string
	rootAttrs   map[string]any
	childDur    []float64
	childErr    []string
	childAttrs  []map[string]any
	childCount  []int
}

// faults changes a request the way each fault shows. Entries share a shape
// on purpose (find the child, fail it, set the status, log): each is one
// fault's data, kept whole so that a scenario reads in one place.
var faults = map[string]func(w *world, q *faultReq){
	"bad_release": func(w *world, q *faultReq) {
		r := w.r
		if (q.ep.route == "/checkout" && r.Float64() < 0.8) || (q.ep.route == "/products" && r.Float64() < 0.3) {
			q.status, q.code, q.msg = 2, 500, "runtime error: invalid memory address or nil pointer dereference"
			q.rootAttrs["exception.type"] = "runtime.Error"
			q.dur *= 0.4
			w.log(q.svc, q.logAt, "ERROR", "panic recovered in "+q.ep.name+": runtime error: invalid memory address or nil pointer dereference [goroutine 4211]", q.trace, q.root, map[string]any{"exception.type": "runtime.Error"})
		}
	},
	"config_regression": func(w *world, q *faultReq) {
		r := w.r
		if q.ep.route == "/search" && r.Float64() < 0.7 {
			q.status, q.code, q.msg = 2, 500, `unknown ranking profile "v2-beta"`
			if i := childIndex(q.ep, "ranking.profile.load"); i >= 0 {
				q.childErr[i] = `profile "v2-beta" not found in profiles.yaml`
				q.childAttrs[i]["ranking.profile"] = "v2-beta"
			}
			w.log(q.svc, q.logAt, "ERROR", `config: ranking.profile "v2-beta" not found in /etc/search/profiles.yaml; falling back is disabled`, q.trace, q.root, nil)
		}
	},
	"retry_storm": func(w *world, q *faultReq) {
		r := w.r
		if i := childIndex(q.ep, "POST /charge"); i >= 0 {
			n := 4 + r.IntN(5)
			q.childCount[i] = n
			q.childDur[i] = 200 + r.Float64()*5
			q.childErr[i] = "context deadline exceeded (Client.Timeout 200ms)"
			q.dur = float64(n)*q.childDur[i] + q.dur*0.3
			if r.Float64() < 0.35 {
				q.status, q.code, q.msg = 2, 504, "upstream payments-api timed out after retries"
			}
			w.log(q.svc, q.logAt, "WARN", fmt.Sprintf("payments-api call timed out after 200ms; retrying (attempt %d/8)", n), q.trace, q.root, map[string]any{"http.request.resend_count": n})
		}
	},
	"prompt_regression": func(w *world, q *faultReq) {
		r := w.r
		if i := childIndex(q.ep, "guardrail.check"); i >= 0 && r.Float64() < 0.6 {
			q.childErr[i] = "answer rejected: off_topic"
			q.childAttrs[i]["guardrail.passed"] = false
			q.childAttrs[i]["guardrail.score"] = math.Round(r.Float64()*20) / 100
			q.status, q.msg = 2, "answer rejected by guardrail"
			q.rootAttrs["guardrail.passed"] = false
			w.log(q.svc, q.logAt, "WARN", fmt.Sprintf("guardrail rejected answer (policy=on_topic, score=%.2f, template=answer_v5)", q.childAttrs[i]["guardrail.score"]), q.trace, q.root, nil)
		} else if i >= 0 {
			q.childAttrs[i]["guardrail.passed"] = true
		}
		if i := childIndex(q.ep, "prompt.build"); i >= 0 {
			q.childAttrs[i]["prompt.template"] = "answer_v5"
		}
	},
	"retrieval_latency": func(w *world, q *faultReq) {
		r := w.r
		if i := childIndex(q.ep, "vectorstore.query"); i >= 0 {
			slow := 1800 + r.Float64()*1700
			q.childDur[i] = slow
			q.dur += slow
			if r.Float64() < 0.06 {
				q.childErr[i] = "context deadline exceeded"
				q.status, q.code, q.msg = 2, 504, "retrieval timed out"
			}
			if r.Float64() < 0.3 {
				w.log(q.svc, q.logAt, "WARN", fmt.Sprintf("vectorstore query slow: %.1fs (collection=help_docs, top_k=8)", slow/1000), q.trace, q.root, nil)
			}
		}
	},
	"db_pool_exhaustion": func(w *world, q *faultReq) {
		r := w.r
		if i := childIndex(q.ep, "pool.checkout"); i >= 0 && r.Float64() < 0.5 {
			q.childDur[i] = 100 + r.Float64()*2
			q.childErr[i] = "pool exhausted: checkout timed out after 100ms"
			q.status, q.code, q.msg = 2, 503, "database unavailable: pool exhausted"
			q.dur = q.childDur[i] + 5
			w.log(q.svc, q.logAt, "ERROR", "pool checkout timed out after 100ms (in_use=20 idle=0 max=20 waiters=37)", q.trace, q.root, map[string]any{"db.client.connection.pool.name": "orders"})
		}
	},
	"dependency_outage": func(w *world, q *faultReq) {
		r := w.r
		if i := childIndex(q.ep, "POST /charge"); i >= 0 && r.Float64() < 0.8 {
			q.childDur[i] = 1 + r.Float64()*3
			q.childErr[i] = "dial tcp 10.0.3.7:443: connect: connection refused"
			q.status, q.code, q.msg = 2, 502, "payment provider unavailable"
			q.dur *= 0.5
			w.log(q.svc, q.logAt, "ERROR", "payments-api unavailable: dial tcp 10.0.3.7:443: connect: connection refused", q.trace, q.root, map[string]any{"peer.service": pay})
		}
	},
	"resource_saturation": func(w *world, q *faultReq) {
		r := w.r
		f := 3 + r.Float64()*2
		q.dur *= f
		for i := range q.childDur {
			q.childDur[i] *= f
		}
		if r.Float64() < 0.05 {
			q.status, q.code, q.msg = 2, 503, "context deadline exceeded"
		}
		if r.Float64() < 0.15 {
			w.log(q.svc, q.logAt, "WARN", fmt.Sprintf("GC pause %dms (heap %.1fGiB of 2GiB limit)", 250+r.IntN(400), 1.7+r.Float64()*0.25), "", "", nil)
		}
		if r.Float64() < 0.01 {
			w.log(q.svc, q.logAt, "ERROR", "container restarted after OOMKilled (exit code 137)", "", "", nil)
		}
	},
	"traffic_surge": func(w *world, q *faultReq) {
		r := w.r
		q.dur *= 1.8 + r.Float64()*0.4
		for i := range q.childDur {
			q.childDur[i] *= 1.9
		}
		if r.Float64() < 0.06 {
			q.status, q.code, q.msg = 2, 429, "rate limited: queue full"
		}
		if r.Float64() < 0.03 {
			w.log(q.svc, q.logAt, "WARN", fmt.Sprintf("request queue depth %d (limit 500)", 380+r.IntN(120)), "", "", nil)
		}
	},
	"noise": func(w *world, q *faultReq) {
		r := w.r
		if q.t.Before(w.onset.Add(5*time.Minute)) && r.Float64() < 0.18 {
			msgs := []string{"context canceled", "EOF", "i/o timeout", "broken pipe"}
			q.status, q.code, q.msg = 2, 500+r.IntN(4), msgs[r.IntN(len(msgs))]
			w.log(q.svc, q.logAt, "ERROR", "request failed: "+q.msg, q.trace, q.root, nil)
		}
		q.dur *= 1.2
	},
}

// applyFault changes one request after the onset the way the fault shows.
func (w *world) applyFault(svc string, ep endpoint, t time.Time, trace, root string, dur float64, status, code int, msg string,
	rootAttrs map[string]any, childDur []float64, childErr []string, childAttrs []map[string]any, childCount []int) (float64, int, int, string) {
	q := &faultReq{svc: svc, ep: ep, t: t, logAt: t.Add(time.Duration(dur * 1e6)), trace: trace, root: root, dur: dur, status: status, code: code, msg: msg,
		rootAttrs: rootAttrs, childDur: childDur, childErr: childErr, childAttrs: childAttrs, childCount: childCount}
	if f := faults[w.fault()]; f != nil {
		f(w, q)
	}
	return q.dur, q.status, q.code, q.msg
}

// generate builds the telemetry of one scenario.
func generate(sc Scenario) *world {
	w := &world{sc: sc, r: rng(sc.ID), onset: sc.Now.Add(-sc.Onset), version: map[string][]versionAt{}}
	w.start = sc.Now.Add(-75 * time.Minute)
	services := w.services()
	for _, svc := range services {
		cur := releasesOf(sc, svc)
		for _, rel := range cur {
			w.version[svc] = append(w.version[svc], versionAt{rel.version, rel.at})
		}
	}
	for _, svc := range services {
		for t := w.start; t.Before(sc.Now); {
			w.request(svc, t)
			gap := time.Duration(w.r.ExpFloat64() / w.rate(svc, t) * float64(time.Minute))
			t = t.Add(gap)
		}
		for t := w.start.Add(time.Duration(w.r.IntN(60)) * time.Second); t.Before(sc.Now); t = t.Add(time.Duration(50+w.r.IntN(20)) * time.Second) {
			w.log(svc, t, "INFO", fmt.Sprintf("health check ok (goroutines=%d)", 40+w.r.IntN(30)), "", "", nil)
		}
	}
	for _, d := range sc.Deploys {
		at := w.onset.Add(-d.Before)
		trace := hexID(w.r, 16)
		id := "dep-" + hexID(w.r, 4)
		w.spans = append(w.spans, span{Timestamp: ts(at), TraceID: trace, SpanID: hexID(w.r, 8), Name: "deployment.marker", Kind: kindInternal,
			Resource:   map[string]string{"service.name": d.Service, "service.version": d.Version, "deployment.environment": "production"},
			Attributes: map[string]any{"deployment.version": d.Version, "deployment.previous_version": d.Previous, "deployment.id": id}, at: at})
		w.log(d.Service, at.Add(2*time.Second), "INFO", fmt.Sprintf("%s %s started (previous %s)", d.Service, d.Version, d.Previous), "", "", nil)
	}
	if sc.MarkerTextInLog {
		at := w.onset.Add(-3 * time.Minute)
		w.log(sc.Service, at, "INFO", `deployment.marker service.name=`+sc.Service+` deployment.version=v99 deployment.previous_version=v98 (synced from CI)`, "", "", map[string]any{"deployment.version": "v99"})
	}
	for i, body := range sc.InjectedLogs {
		w.log(sc.Service, w.onset.Add(time.Duration(2+i)*time.Minute), "ERROR", body, "", "", nil)
	}
	sort.SliceStable(w.spans, func(i, j int) bool { return w.spans[i].at.Before(w.spans[j].at) })
	sort.SliceStable(w.logs, func(i, j int) bool { return w.logs[i].at.Before(w.logs[j].at) })
	return w
}

// services returns every service that emits telemetry in the scenario.
func (w *world) services() []string {
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	add(w.sc.Service)
	for _, s := range w.sc.CoServices {
		add(s)
	}
	for _, s := range w.sc.Bystanders {
		add(s)
	}
	for _, d := range w.sc.Deploys {
		add(d.Service)
	}
	return out
}

type rel struct {
	version string
	image   string
	at      time.Time
}

// releasesOf is the release history of svc: two older releases, then the
// scenario's deploys.
func releasesOf(sc Scenario, svc string) []rel {
	onset := sc.Now.Add(-sc.Onset)
	var deploys []Deploy
	for _, d := range sc.Deploys {
		if d.Service == svc {
			deploys = append(deploys, d)
		}
	}
	cur := "v3"
	if len(deploys) > 0 {
		cur = deploys[0].Previous
	}
	prev := prevVersion(cur)
	out := []rel{
		{prev, "agentk-demo/" + svc + ":" + prev, sc.Now.Add(-9 * 24 * time.Hour)},
		{cur, "agentk-demo/" + svc + ":" + cur, sc.Now.Add(-3 * 24 * time.Hour)},
	}
	for _, d := range deploys {
		out = append(out, rel{d.Version, "agentk-demo/" + svc + ":" + d.Version, onset.Add(-d.Before)})
	}
	return out
}

func prevVersion(v string) string {
	var n int
	if _, err := fmt.Sscanf(v, "v%d", &n); err != nil || n <= 1 {
		return "v0"
	}
	return fmt.Sprintf("v%d", n-1)
}
