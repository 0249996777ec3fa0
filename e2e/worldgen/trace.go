package worldgen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"
)

// OTLP span kinds and status codes.
const (
	kindUnspecified = 0
	kindInternal    = 1
	kindServer      = 2
	kindClient      = 3
	kindProducer    = 4
	kindConsumer    = 5

	statusUnset = 0
	statusOK    = 1
	statusError = 2
)

// outcome is how one request to the affected service went.
type outcome struct {
	fail       bool
	status     int
	msg        string
	exc        bool
	slow       float64
	calleeSlow float64
	calleeFail bool
	calleeCode int
	calleeMsg  string
	calleeHost string
	retries    int
	poolWait   time.Duration
	poolFail   bool
	tokens     float64
	quality    bool // the answer failed its quality evaluation
	guardrail  bool
	abort      bool // the request gives up on its call to the dependency
}

// decide draws how a request at t to endpoint ep on version v goes.
func (e *emitter) decide(t time.Time, ep int, v string) outcome {
	w, r := e.w, e.r
	o := outcome{status: 200, slow: 1, calleeSlow: 1, tokens: 1, calleeHost: w.Topo.CalleeHost}
	if w.Topo.Endpoints[ep].Method == "POST" && w.Topo.Kind != CalleeLLM {
		o.status = 201
	}
	// Background noise: a few errors in any healthy minute, and the early spike.
	if r.Float64() < e.baseErrP || (!e.spikeAt.IsZero() && !t.Before(e.spikeAt) && t.Before(e.spikeAt.Add(2*time.Minute)) && r.Float64() < 0.3) {
		o.fail, o.status, o.msg, o.exc = true, 500, e.genericError(), true
		return o
	}
	if !e.episodeFrom.IsZero() && !t.Before(e.episodeFrom) && t.Before(e.episodeTo) {
		o.slow = e.episodeSlow * (0.8 + r.Float64()*0.4)
	}
	if !e.active(t) {
		return o
	}
	if f := classOutcomes[w.Class]; f != nil {
		f(e, &o, request{t: t, ep: ep, newVersion: v == w.NewVersion(), uses: w.Topo.Endpoints[ep].UsesCallee})
	}
	return o
}

// request is what a class's outcome depends on: when, which endpoint, on
// the new version or not, and whether the endpoint calls the dependency.
type request struct {
	t          time.Time
	ep         int
	newVersion bool
	uses       bool
}

// classOutcomes draws, for each failure class, how a request after the onset
// goes (decide has already drawn the background noise).
var classOutcomes = map[string]func(e *emitter, o *outcome, q request){
	"bad_release": func(e *emitter, o *outcome, q request) {
		if q.newVersion && e.broken[q.ep] && e.r.Float64() < e.failP {
			o.fail, o.status, o.msg, o.exc, o.slow = true, 500, e.excMsg, true, 0.4+e.r.Float64()*0.6
			o.abort = e.abortP > 0 && q.uses && e.r.Float64() < e.abortP
		}
	},
	"config_regression": (*emitter).configOutcome,
	"retry_storm": func(e *emitter, o *outcome, q request) {
		if q.newVersion && q.uses {
			r := e.r
			o.retries = 3 + r.IntN(6)
			o.calleeSlow = 2.5 + r.Float64()*3
			o.slow = 2 + r.Float64()*2
			if r.Float64() < e.failP*0.8 {
				o.fail, o.status, o.msg = true, 504, "upstream "+e.w.Topo.Callee+" did not answer after "+fmt.Sprint(o.retries)+" attempts"
			}
		}
	},
	"prompt_regression": func(e *emitter, o *outcome, q request) {
		if q.newVersion {
			r := e.r
			o.tokens = 2.5 + r.Float64()*2
			o.slow = 1.8 + r.Float64()
			o.quality = r.Float64() < 0.4+e.failP*0.6
			o.guardrail = o.quality && r.Float64() < 0.35
			if e.w.Has(QualityOnly) {
				o.slow, o.guardrail = 1, false
			}
		}
	},
	"retrieval_latency": func(e *emitter, o *outcome, q request) {
		if q.uses {
			o.calleeSlow = e.slowdown * (1 + e.r.Float64()*0.5)
			// A model that slowed by itself after a wording-only release
			// answers every call, slower (the trap of
			// gate.change_slow_answered, not of a failing dependency).
			if !e.w.Has(ModelSlowedAfterWording) && e.r.Float64() < 0.04 {
				o.fail, o.status, o.msg = true, 504, "retrieval from "+e.w.Topo.Callee+" exceeded its deadline"
				o.calleeFail, o.calleeMsg = true, "context deadline exceeded"
			}
		}
	},
	"db_pool_exhaustion": func(e *emitter, o *outcome, _ request) {
		o.poolWait = time.Duration((200 + e.r.Float64()*3000) * float64(time.Millisecond))
		if e.r.Float64() < e.failP {
			o.poolFail, o.fail, o.status, o.msg, o.exc = true, true, 500, e.excMsg, true
			o.poolWait = poolTimeout(e.w.Topo.Lang)
		}
	},
	"dependency_outage": func(e *emitter, o *outcome, q request) {
		if q.uses && e.r.Float64() < math.Max(e.failP, 0.55) {
			o.fail, o.exc, o.status, o.msg = true, true, 502, e.excMsg
			o.calleeFail, o.calleeMsg = true, e.excMsg
			o.calleeCode = pick(e.r, []int{0, 503, 503, 500})
			o.retries = e.w.ClientRetries
		}
	},
	"resource_saturation": func(e *emitter, o *outcome, q request) {
		r := e.r
		grow := 1 + math.Min(1, q.t.Sub(e.w.Onset).Minutes()/8)
		o.slow = e.slowdown * 0.6 * grow * (0.8 + r.Float64()*0.4)
		if r.Float64() < e.failP*0.5 {
			o.fail, o.status, o.msg = true, 503, pick(r, []string{"context deadline exceeded", "server overloaded, shedding request", "request timed out in queue"})
		}
	},
	"traffic_surge": func(e *emitter, o *outcome, _ request) {
		o.slow = 1.6 + (e.surge-3)*0.25 + e.r.Float64()*0.3
		if e.r.Float64() < 0.06 {
			o.fail, o.status, o.msg = true, pick(e.r, []int{429, 503}), "too many concurrent requests"
		}
	},
	"unknown": func(e *emitter, o *outcome, q request) {
		if q.ep == len(e.w.Topo.Endpoints)-1 {
			o.slow = 1.4 + e.r.Float64()*0.4
		}
		if e.r.Float64() < 0.05 {
			o.fail, o.status, o.msg = true, 500, e.genericError()
		}
	},
}

// configOutcome: the new version calls the dependency with a bad setting.
func (e *emitter) configOutcome(o *outcome, q request) {
	if !q.newVersion || !q.uses || e.r.Float64() >= math.Max(e.failP, 0.5) {
		return
	}
	o.fail, o.exc = true, true
	if e.w.Topo.Kind == CalleeDB {
		o.status, o.msg = 500, e.excMsg
		o.calleeFail, o.calleeMsg = true, e.excMsg
		return
	}
	o.status, o.msg = 502, e.excMsg
	o.calleeFail, o.calleeMsg, o.calleeHost = true, e.excMsg, misconfiguredHost(e.w.Topo)
}

func poolTimeout(lang string) time.Duration {
	switch lang {
	case "java":
		return 30 * time.Second
	case "python":
		return 30 * time.Second
	default:
		return 5 * time.Second
	}
}

func misconfiguredHost(t Topology) string {
	if strings.Contains(t.CalleeHost, ".") {
		return "staging-" + t.CalleeHost
	}
	return t.CalleeHost + ".old-cluster.local"
}

// request writes one stored trace that reaches the affected service, through
// the caller or directly.
func (e *emitter) request(t time.Time) {
	ns, nl := len(e.out.Spans), len(e.out.Logs)
	e.trace(t)
	e.tailKeep(ns, nl)
}

// trace writes one trace that reaches the affected service, through the
// caller or directly (request decides whether a tail sampler keeps it).
func (e *emitter) trace(t time.Time) {
	w, r := e.w, e.r
	topo := w.Topo
	ep := e.endpoint()
	v := e.version(t)
	o := e.decide(t, ep, v)
	trace := e.hex(32)
	viaCaller := r.Float64() < 0.65

	epd := topo.Endpoints[ep]
	base := e.lognormal(epd.BaseMs)
	if viaCaller && e.queue.dest != "" {
		e.message(trace, t, epd, ep, o, v, base)
		return
	}
	var parent string
	start := t
	var callerID, clientID string
	if viaCaller {
		callerID, clientID = e.hex(16), e.hex(16)
		parent = clientID
		start = t.Add(time.Duration(1+r.IntN(4)) * time.Millisecond)
	}
	sID := e.hex(16)
	// The affected service's children.
	children := e.children(trace, sID, start.Add(time.Duration(1+r.IntN(3))*time.Millisecond), epd, o, v)
	dur := time.Duration(float64(base)*o.slow) + children
	if o.fail && o.slow < 1 && children == 0 {
		dur = time.Duration(float64(base) * o.slow)
	}
	e.serverSpan(trace, sID, parent, start, dur, ep, o, v)
	// A tail-sampled world whose service logs every request
	// (TailSampler.Logs) writes its access line beside its error line.
	every := w.Tail != nil && w.Tail.Logs == LogsRequests
	if o.fail && (o.exc || r.Float64() < 0.5) {
		e.errorLog(trace, sID, start.Add(dur), o, v)
		if every {
			e.accessLog(trace, sID, start.Add(dur), ep, o, v)
		}
	} else if r.Float64() < 0.12 || every {
		e.accessLog(trace, sID, start.Add(dur), ep, o, v)
	}
	if viaCaller {
		e.callerSpans(trace, callerID, clientID, t, dur, ep, o)
	}
}

// children writes the affected service's spans beneath its server span
// (pool, database, dependency calls) from cursor on, and returns their time.
func (e *emitter) children(trace, sID string, cursor time.Time, epd Endpoint, o outcome, v string) time.Duration {
	topo := e.w.Topo
	var children time.Duration
	if e.w.Class == "db_pool_exhaustion" || (topo.Kind == CalleeDB && epd.UsesCallee) {
		if o.poolWait > 0 {
			e.poolSpan(trace, sID, cursor, o, v)
			cursor = cursor.Add(o.poolWait)
			children += o.poolWait
		}
		if !o.poolFail && (epd.UsesCallee || topo.Kind != CalleeDB) {
			d := e.dbSpan(trace, sID, cursor, o, v)
			cursor = cursor.Add(d)
			children += d
		}
	}
	if epd.UsesCallee && topo.Kind != CalleeDB {
		children += e.calleeCalls(trace, sID, cursor, o, v)
	}
	return children
}

func (e *emitter) endpoint() int {
	u := e.r.Float64()
	for i, ep := range e.w.Topo.Endpoints {
		if u < ep.Share {
			return i
		}
		u -= ep.Share
	}
	return len(e.w.Topo.Endpoints) - 1
}

func (e *emitter) span(trace, id, parent, name string, kind int, at time.Time, d time.Duration, res map[string]any, attrs map[string]any) *SpanRec {
	e.out.Spans = append(e.out.Spans, SpanRec{
		Timestamp: ts(at), TraceID: trace, SpanID: id, ParentSpanID: parent, Name: name, Kind: kind,
		DurationNano: int64(d), Resource: res, Attributes: attrs, at: at,
	})
	return &e.out.Spans[len(e.out.Spans)-1]
}

func (s *SpanRec) fail(msg string) {
	s.HasError, s.StatusCode, s.StatusMessage = true, statusError, msg
}

func (e *emitter) serverSpan(trace, id, parent string, at time.Time, d time.Duration, ep int, o outcome, v string) {
	w := e.w
	epd := w.Topo.Endpoints[ep]
	attrs := httpServerAttrs(w.Semconv, epd.Method, epd.Route, o.status, w.Topo.HostPort)
	if w.Topo.Kind == CalleeLLM && e.promptAttr {
		attrs["app.prompt.template"] = "answer-" + v
	}
	s := e.span(trace, id, parent, epd.Method+" "+epd.Route, kindServer, at, d, e.resource(w.Topo.Affected, v, at), attrs)
	if o.fail {
		s.fail(o.msg)
		if w.Semconv == SemconvNew {
			attrs["error.type"] = fmt.Sprint(o.status)
			if o.exc {
				attrs["error.type"] = e.excType
			}
		}
		if o.exc {
			s.Events = []Event{{Name: "exception", Timestamp: ts(at.Add(d)), Attributes: map[string]any{
				"exception.type": e.excType, "exception.message": o.msg, "exception.stacktrace": stackFor(w.Topo.Lang, e.excType, o.msg),
			}}}
		}
	} else if w.Topo.Lang == "java" || w.Topo.Lang == "dotnet" {
		s.StatusCode = statusUnset
	}
}

// callerSpans writes the caller's server and client spans around a request
// of d to the affected service that answered o.
func (e *emitter) callerSpans(trace, rootID, clientID string, at time.Time, d time.Duration, ep int, o outcome) {
	w, r := e.w, e.r
	calleeStatus, status := o.status, 200
	if o.fail && r.Float64() < 0.85 {
		status = 502
		if o.status == 504 || o.status == 429 {
			status = o.status
		}
	}
	d += time.Duration(2+r.IntN(6)) * time.Millisecond
	topo := w.Topo
	res := e.resource(topo.Caller, "web-"+fmt.Sprint(3+w.Index%7), at)
	root := e.span(trace, rootID, "", "GET "+topo.CallerRoute, kindServer, at, d+time.Duration(1+r.IntN(3))*time.Millisecond, res,
		httpServerAttrs(w.Semconv, "GET", topo.CallerRoute, status, 443))
	epd := topo.Endpoints[ep]
	url := fmt.Sprintf("http://%s:%d%s", topo.Affected, topo.HostPort, strings.ReplaceAll(epd.Route, "{id}", fmt.Sprint(1000+r.IntN(9000))))
	client := e.span(trace, clientID, rootID, epd.Method, kindClient, at.Add(time.Millisecond), d, e.resource(topo.Caller, res["service.version"].(string), at),
		httpClientAttrs(w.Semconv, epd.Method, url, topo.Affected, topo.HostPort, calleeStatus, topo.Affected))
	if calleeStatus >= 500 || calleeStatus == 429 {
		client.fail(fmt.Sprintf("%d", calleeStatus))
	}
	if status >= 500 || status == 429 {
		root.fail(fmt.Sprintf("upstream %s answered %d", topo.Affected, calleeStatus))
	}
}

func (e *emitter) poolSpan(trace, parent string, at time.Time, o outcome, v string) {
	w := e.w
	name := map[string]string{"java": "HikariPool.getConnection", "go": "pgxpool.Acquire", "python": "QueuePool.connect", "nodejs": "pool.connect", "dotnet": "DbConnection.Open"}[w.Topo.Lang]
	attrs := map[string]any{}
	if w.Semconv == SemconvNew {
		attrs["db.system.name"] = w.Topo.DBSystem
		attrs["db.client.connection.pool.name"] = w.Topo.DBName + "-pool"
	} else {
		attrs["db.system"] = w.Topo.DBSystem
		attrs["pool.name"] = w.Topo.DBName + "-pool"
	}
	s := e.span(trace, e.hex(16), parent, name, kindInternal, at, o.poolWait, e.resource(w.Topo.Affected, v, at), attrs)
	if o.poolFail {
		s.fail(e.excMsg)
	}
}

var dbQueries = []struct{ op, table, text string }{
	{"SELECT", "orders", "SELECT id, status, total FROM orders WHERE customer_id = $1 LIMIT 50"},
	{"SELECT", "items", "SELECT * FROM items WHERE sku = ?"},
	{"INSERT", "events", "INSERT INTO events (kind, payload) VALUES ($1, $2)"},
	{"UPDATE", "accounts", "UPDATE accounts SET balance = balance - ? WHERE id = ?"},
}

func (e *emitter) dbSpan(trace, parent string, at time.Time, o outcome, v string) time.Duration {
	w, r := e.w, e.r
	q := pick(r, dbQueries)
	d := e.lognormal(4 + r.Float64()*12)
	attrs := dbAttrs(w.Semconv, w.Topo.DBSystem, w.Topo.DBName, q.op, q.table, q.text, w.Topo.CalleeHost)
	s := e.span(trace, e.hex(16), parent, q.op+" "+w.Topo.DBName+"."+q.table, kindClient, at, d, e.resource(w.Topo.Affected, v, at), attrs)
	if o.calleeFail && w.Class == "config_regression" {
		s.fail(o.calleeMsg)
		s.DurationNano = int64(2 * time.Millisecond)
		return 2 * time.Millisecond
	}
	return d
}

// calleeCalls writes the affected service's client spans to its dependency
// (several when it retries) and, for an instrumented dependency, the
// dependency's own server spans beneath them.
func (e *emitter) calleeCalls(trace, parent string, at time.Time, o outcome, v string) time.Duration {
	w := e.w
	topo := w.Topo
	if e.retryAttr != "" {
		return e.inSpanRetryCall(trace, parent, at, o, v)
	}
	attempts := 1 + o.retries
	var total time.Duration
	for a := 0; a < attempts; a++ {
		id := e.hex(16)
		name, attrs := e.clientCall(o, a)
		d, status, failed := e.attemptOutcome(o, a, attempts, e.calleeLatency(o), attrs)
		if topo.Kind == CalleeLLM {
			e.genAIAttrs(attrs, o, v)
		} else if status != 0 {
			setStatusAttr(w.Semconv, attrs, status, failed)
		}
		s := e.span(trace, id, parent, name, kindClient, at.Add(total), d, e.resource(topo.Affected, v, at), attrs)
		if failed && o.abort {
			s.fail("context canceled")
		} else if failed {
			s.fail(orDefault(o.calleeMsg, "context deadline exceeded"))
		}
		if topo.Instrumented() && !(o.calleeFail && o.calleeCode == 0) {
			e.calleeServerSpan(trace, id, at.Add(total+time.Millisecond), at, d, status, o)
		}
		total += d
	}
	return total
}

// calleeLatency draws how long one client call to the dependency takes
// when nothing goes wrong with the call itself.
func (e *emitter) calleeLatency(o outcome) time.Duration {
	switch {
	case e.w.Topo.Kind == CalleeLLM && e.w.Has(QualityOnly):
		return e.lognormal(350)
	case e.w.Topo.Kind == CalleeLLM:
		// calleeSlow: the model slowed by itself (a WordingRelease corner's
		// retrieval_latency); 1 otherwise.
		return e.lognormal(350 * o.tokens * o.calleeSlow)
	case e.w.Topo.Kind == CalleeVector:
		return e.lognormal(40 * o.calleeSlow)
	default:
		return e.lognormal(25 * o.calleeSlow)
	}
}

// attemptOutcome decides how attempt a of attempts ends: its duration
// (d unless the outcome overrides it), HTTP status (0 when nothing
// answered) and whether it failed. It records the resend count in attrs.
func (e *emitter) attemptOutcome(o outcome, a, attempts int, d time.Duration, attrs map[string]any) (time.Duration, int, bool) {
	r := e.r
	status := 200
	failed := false
	switch {
	case o.abort:
		// The release gives up on the call; nothing answered it.
		d = time.Duration(float64(e.abortAfter) * (0.8 + r.Float64()*0.4))
		failed, status = true, 0
	case o.retries > 0:
		// Each attempt hits the new, shorter timeout.
		d = time.Duration((80 + r.Float64()*40) * float64(time.Millisecond))
		failed, status = a < attempts-1 || o.fail, 504
		attrs["http.request.resend_count"] = a
	case o.calleeFail:
		failed, status = true, o.calleeCode
		if o.calleeCode == 0 {
			d = time.Duration(1+r.IntN(4)) * time.Millisecond
		}
	}
	return d, status, failed
}

// calleeServerSpan writes the instrumented dependency's server span under
// client span id, starting at start, for a client call of duration d that
// ended with status; at is the incident time used for the resource.
func (e *emitter) calleeServerSpan(trace, id string, start, at time.Time, d time.Duration, status int, o outcome) {
	w, r := e.w, e.r
	topo := w.Topo
	inner := time.Duration(float64(d) * 0.85)
	if o.retries > 0 {
		// The dependency keeps working long after the caller gave up.
		inner = e.lognormal(25 * o.calleeSlow)
	}
	serverStatus := maxInt(status, 200)
	if o.abort {
		// Abandoned, it runs on and fails when it notices.
		inner, serverStatus = d+time.Duration(float64(e.outlive)*(0.5+r.Float64())), 499
	}
	ss := e.span(trace, e.hex(16), id, "POST /internal/"+strings.SplitN(topo.Callee, "-", 2)[0], kindServer, start, inner,
		e.resource(topo.Callee, "r"+fmt.Sprint(40+w.Index%9), at), httpServerAttrs(w.Semconv, "POST", "/internal/"+strings.SplitN(topo.Callee, "-", 2)[0], serverStatus, 8080))
	switch {
	case o.abort:
		ss.fail("context canceled")
	case o.calleeFail && w.Class != "retry_storm":
		ss.fail(o.calleeMsg)
	}
}

// inSpanRetryCall is the call to the dependency of a client that retries
// inside one span (InSpanRetries): one SDK span as long as every attempt, its retries (or attempts) in the world's attribute, and one log
// line of the SDK per retry.
func (e *emitter) inSpanRetryCall(trace, parent string, at time.Time, o outcome, v string) time.Duration {
	w, r := e.w, e.r
	topo := w.Topo
	id := e.hex(16)
	name, attrs := e.clientCall(o, 0)
	d := e.lognormal(25 * o.calleeSlow)
	if topo.Kind == CalleeLLM {
		d = e.lognormal(350)
	}
	for n := 1; n <= o.retries; n++ {
		d += time.Duration((80 + r.Float64()*40) * float64(time.Millisecond))
		e.log(at.Add(d), sevInfo, retryLogStyles[e.retryLog](n, topo.CalleeHost), trace, id, topo.Affected, v, nil)
	}
	count := o.retries
	if e.retryAttempts {
		count++
	}
	attrs[e.retryAttr] = count
	status := 200
	if o.fail {
		status = 504
	}
	if topo.Kind == CalleeLLM {
		e.genAIAttrs(attrs, o, v)
	} else {
		setStatusAttr(w.Semconv, attrs, status, o.fail)
	}
	// The SDK's own span around its attempts (INTERNAL, as the LLM SDK
	// instrumentations write it); the request's failure is its server
	// span's. A client span failing at its usual call rate would read as
	// a dependency that failed, which a retried call cannot be told from.
	e.span(trace, id, parent, name, kindInternal, at, d, e.resource(topo.Affected, v, at), attrs)
	return d
}

func maxInt(a, b int) int {
	if a == 0 {
		return b
	}
	return a
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// clientCall names the client span to the dependency and its attributes.
func (e *emitter) clientCall(o outcome, attempt int) (string, map[string]any) {
	w := e.w
	topo := w.Topo
	switch topo.Kind {
	case CalleeLLM:
		return "chat " + topo.DBName, map[string]any{}
	case CalleeVector:
		url := fmt.Sprintf("http://%s:6333/collections/docs/points/search", topo.CalleeHost)
		return "POST", httpClientAttrs(w.Semconv, "POST", url, topo.CalleeHost, 6333, 0, topo.Callee)
	case CalleeExternal:
		url := fmt.Sprintf("https://%s/v1/%s", o.calleeHost, pick(e.r, []string{"charges", "messages", "rates", "geocode"}))
		return "POST", httpClientAttrs(w.Semconv, "POST", url, o.calleeHost, 443, 0, topo.Callee)
	default:
		url := fmt.Sprintf("http://%s:8080/internal/%s", o.calleeHost, strings.SplitN(topo.Callee, "-", 2)[0])
		return "POST", httpClientAttrs(w.Semconv, "POST", url, o.calleeHost, 8080, 0, topo.Callee)
	}
}

func (e *emitter) genAIAttrs(attrs map[string]any, o outcome, v string) {
	w, r := e.w, e.r
	in := w.promptSent(attrs, v, 400+r.IntN(1800))
	out := int(float64(120+r.IntN(300)) * o.tokens)
	if w.Semconv == SemconvNew {
		attrs["gen_ai.provider.name"] = w.Topo.Callee
		attrs["gen_ai.usage.input_tokens"] = in
		attrs["gen_ai.usage.output_tokens"] = out
	} else {
		attrs["gen_ai.system"] = w.Topo.Callee
		attrs["gen_ai.usage.prompt_tokens"] = in
		attrs["gen_ai.usage.completion_tokens"] = out
	}
	attrs["gen_ai.operation.name"] = "chat"
	attrs["gen_ai.request.model"] = w.Topo.DBName
	attrs["server.address"] = w.Topo.CalleeHost
	score := 0.78 + r.Float64()*0.2
	if o.quality {
		score = 0.1 + r.Float64()*0.35
	}
	score = math.Round(score*100) / 100
	switch e.qualityNS {
	case 0:
		attrs["gen_ai.evaluation.name"] = "answer_relevance"
		attrs["gen_ai.evaluation.score.value"] = score
		attrs["gen_ai.evaluation.score.label"] = map[bool]string{true: "fail", false: "pass"}[o.quality]
	case 1:
		attrs["llm.quality.groundedness"] = score
		attrs["llm.guardrail.blocked"] = o.guardrail
	default:
		attrs["eval.relevance_score"] = score
		attrs["eval.passed"] = !o.quality
		if o.guardrail {
			attrs["guardrail.triggered"] = "toxicity"
		}
	}
	attrs["gen_ai.response.finish_reasons"] = []string{map[bool]string{true: "length", false: "stop"}[o.tokens > 2 && r.Float64() < 0.5]}
}

// neighbour writes one trace of the unrelated service; with a shared
// dependency it calls the same failing third party, without the affected
// service anywhere in its trace.
func (e *emitter) neighbour(t time.Time) {
	w, r := e.w, e.r
	topo := w.Topo
	trace, id := e.hex(32), e.hex(16)
	route := pick(r, topo.NeighbourRoutes)
	d := e.lognormal(20 + float64(len(route))*3)
	status := 200
	fail := false
	res := e.resource(topo.Neighbour, "1."+fmt.Sprint(w.Index%11)+".0", t)
	if w.Has(SharedDependency) && r.Float64() < 0.5 {
		cid := e.hex(16)
		cs := e.span(trace, cid, id, "POST", kindClient, t.Add(time.Millisecond), d/2, res,
			httpClientAttrs(w.Semconv, "POST", "https://"+topo.CalleeHost+"/v1/notify", topo.CalleeHost, 443, 200, topo.Callee))
		if e.active(t) && r.Float64() < 0.6 {
			cs.fail(e.excMsg)
			setStatusAttr(w.Semconv, cs.Attributes, 503, true)
			status, fail = 502, true
		}
	}
	s := e.span(trace, id, "", "POST "+route, kindServer, t, d, res, httpServerAttrs(w.Semconv, "POST", route, status, 8080))
	if fail {
		s.fail("dependency " + topo.Callee + " unavailable")
	}
}

// deployMarkers writes one deployment.marker span per deploy, in the world's style.
func (e *emitter) deployMarkers() {
	w := e.w
	for _, d := range w.Deploys {
		attrs := map[string]any{"deployment.version": d.Version}
		res := map[string]any{"service.name": d.Service}
		kind := kindInternal
		var dur time.Duration
		switch w.MarkerStyle {
		case 1:
			attrs["deployment.previous_version"] = d.Previous
			attrs["deployment.id"] = fmt.Sprintf("deploy-%d-%s", d.At.Unix()%100000, e.hex(6))
		case 2:
			attrs["deployment.version"] = jsonNumber(d.Version)
			attrs["deployment.previous_version"] = jsonNumber(d.Previous)
		case 3:
			attrs["deployment.previous_version"] = d.Previous
			attrs["deployment.environment.name"] = "production"
			attrs["deployment.name"] = d.Service + "@" + d.Version
			attrs["vcs.ref.head.revision"] = e.hex(40)
			dur = time.Duration(20+e.r.IntN(200)) * time.Second
		case 4:
			res["service.version"] = d.Version
			kind = kindUnspecified
		}
		if d.At.Before(w.Start) || !d.At.Before(w.Now) {
			continue
		}
		e.span(e.hex(32), e.hex(16), "", "deployment.marker", kind, d.At, dur, res, attrs)
	}
	e.falseMarkers()
}

// jsonNumber writes a build number as a JSON number when it is one.
func jsonNumber(s string) any {
	var n int
	if _, err := fmt.Sscanf(s, "%d", &n); err == nil && fmt.Sprint(n) == s {
		return n
	}
	return s
}

func (e *emitter) genericError() string {
	return pick(e.r, []string{"unexpected EOF", "connection reset by peer", "internal error", "broken pipe"})
}

// exceptionFor draws the exception type and message a class throws in a language.
func exceptionFor(r *rand.Rand, lang, class string, t Topology) (string, string) {
	switch class {
	case "bad_release":
		p := pick(r, map[string][][2]string{
			"go":     {{"runtime.Error", "runtime error: invalid memory address or nil pointer dereference"}, {"runtime.Error", "runtime error: index out of range [3] with length 3"}},
			"java":   {{"java.lang.NullPointerException", "Cannot invoke \"Discount.amount()\" because \"d\" is null"}, {"java.lang.IllegalStateException", "Duplicate key LineItem"}},
			"python": {{"KeyError", "'currency'"}, {"TypeError", "unsupported operand type(s) for +: 'NoneType' and 'int'"}},
			"nodejs": {{"TypeError", "Cannot read properties of undefined (reading 'id')"}},
			"dotnet": {{"System.NullReferenceException", "Object reference not set to an instance of an object."}},
		}[lang])
		return p[0], p[1]
	case "config_regression":
		if t.Kind == CalleeDB {
			return "ConfigError", fmt.Sprintf("FATAL: password authentication failed for user \"%s_app\"", t.DBName)
		}
		return "ConnectionError", fmt.Sprintf("dial tcp: lookup %s: no such host", misconfiguredHost(t))
	case "db_pool_exhaustion":
		switch lang {
		case "java":
			return "java.sql.SQLTransientConnectionException", t.DBName + "-pool - Connection is not available, request timed out after 30000ms."
		case "python":
			return "sqlalchemy.exc.TimeoutError", "QueuePool limit of size 10 overflow 5 reached, connection timed out, timeout 30.00"
		default:
			return "PoolTimeout", "timed out acquiring a connection from the pool: 20 in use, 0 idle"
		}
	case "dependency_outage":
		p := pick(r, [][2]string{
			{"ConnectionRefusedError", fmt.Sprintf("connect ECONNREFUSED %s:443", t.CalleeHost)},
			{"HttpRequestException", fmt.Sprintf("503 Service Unavailable from %s", t.CalleeHost)},
			{"TLSHandshakeTimeout", fmt.Sprintf("net/http: TLS handshake timeout (%s)", t.CalleeHost)},
		})
		return p[0], p[1]
	default:
		return "InternalError", "unhandled error"
	}
}

func stackFor(lang, typ, msg string) string {
	switch lang {
	case "go":
		return "goroutine 42 [running]:\nmain.(*handler).serve(...)\n\t/src/handler.go:118 +0x1d4"
	case "java":
		return typ + ": " + msg + "\n\tat com.example.app.Service.handle(Service.java:214)"
	case "python":
		return "Traceback (most recent call last):\n  File \"/app/handlers.py\", line 87, in handle\n" + typ + ": " + msg
	default:
		return typ + ": " + msg + "\n    at handle (/app/src/handler.js:61:17)"
	}
}
