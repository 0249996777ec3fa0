package worldgen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// SpanRec is one line of spans.jsonl, in SigNoz's column names. It repeats
// e2e/corpusgen's span row on purpose: worldgen shares no code (and no
// strings) with corpusgen, so that its corpus stays out-of-sample (issue 18),
// nor with contracts/incident.Span, the reader (corpusgen says why).
type SpanRec struct {
	Timestamp     string         `json:"timestamp"`
	TraceID       string         `json:"trace_id"`
	SpanID        string         `json:"span_id"`
	ParentSpanID  string         `json:"parent_span_id"`
	Name          string         `json:"name"`
	Kind          int            `json:"kind"`
	DurationNano  int64          `json:"duration_nano"`
	HasError      bool           `json:"has_error"`
	StatusCode    int            `json:"status_code"`
	StatusMessage string         `json:"status_message"`
	Resource      map[string]any `json:"resource"`
	Attributes    map[string]any `json:"attributes"`
	// Events are the span's OTel events (an exception is one), an addition
	// the format tolerates; the same facts are also logged.
	Events []Event `json:"events,omitempty"`

	at time.Time
}

// Event is one span event.
type Event struct {
	Name       string         `json:"name"`
	Timestamp  string         `json:"timestamp"`
	Attributes map[string]any `json:"attributes"`
}

// LogRec is one line of logs.jsonl.
type LogRec struct {
	Timestamp      string         `json:"timestamp"`
	SeverityText   string         `json:"severity_text"`
	SeverityNumber int            `json:"severity_number"`
	Body           string         `json:"body"`
	TraceID        string         `json:"trace_id"`
	SpanID         string         `json:"span_id"`
	Resource       map[string]any `json:"resource"`
	Attributes     map[string]any `json:"attributes"`

	at time.Time
	// kind says which request's record this is: an access line
	// (logRequest) or a failed request's error (logFailure); zero for the
	// records about no one request. A tail sampler that does not sample
	// the logs keeps them by it (TailSampler.Logs).
	kind int
}

// Telemetry is a world's recorded spans and logs, each in time order.
type Telemetry struct {
	Spans []SpanRec
	Logs  []LogRec
}

const rfc3339Micro = "2006-01-02T15:04:05.000000Z07:00"

func ts(t time.Time) string { return t.UTC().Format(rfc3339Micro) }

// emitter holds the per-world state of telemetry generation.
type emitter struct {
	w   World
	r   *rand.Rand
	out Telemetry

	// Per-world draws of how the class shows itself.
	failP      float64 // share of affected requests that fail once active
	slowdown   float64 // latency multiplier once active
	broken     []bool  // which endpoints a release broke
	surge      float64
	restartAt  time.Time
	restartGap time.Duration
	pidBefore  int
	pidAfter   int
	sevStyle   int
	qualityNS  int
	promptAttr bool
	spikeAt    time.Time
	// episodeFrom, episodeTo: an earlier latency block (EarlierEpisode),
	// episodeSlow its slowdown.
	episodeFrom, episodeTo time.Time
	episodeSlow            float64
	// retryAttr names the attribute that counts the retries inside one span
	// (InSpanRetries), retryAttempts whether it counts attempts, retryLog
	// the SDK's retry log style.
	retryAttr     string
	retryAttempts bool
	retryLog      int
	// abortP is the share of a release's failing requests to the dependency
	// that give up on the call after abortAfter; the dependency's span then
	// runs outlive longer and fails (DownstreamCallee).
	abortP              float64
	abortAfter, outlive time.Duration
	excType             string
	excMsg              string
	// queue is how the affected service consumes messages (QueueConsumer).
	queue      queue
	runtimeVer string
	hostName   string
	baseErrP   float64
}

// Emit generates a world's telemetry; it is deterministic in the world.
func Emit(w World) Telemetry {
	if w.Chain != nil {
		return emitChain(w)
	}
	e := newEmitter(w)
	e.setup()
	e.run()
	// A span is exported when it ends: one still running at now is not
	// stored yet, nor is a log written after now.
	e.out.Spans = slices.DeleteFunc(e.out.Spans, func(s SpanRec) bool { return s.at.Add(time.Duration(s.DurationNano)).After(w.Now) })
	e.out.Logs = slices.DeleteFunc(e.out.Logs, func(l LogRec) bool { return l.at.After(w.Now) })
	slices.SortStableFunc(e.out.Spans, func(a, b SpanRec) int { return a.at.Compare(b.at) })
	slices.SortStableFunc(e.out.Logs, func(a, b LogRec) int { return a.at.Compare(b.at) })
	return e.out
}

// newEmitter is the emitter of w, before setup: its draws are w's own.
func newEmitter(w World) *emitter {
	return &emitter{w: w, r: rand.New(rand.NewPCG(w.Seed^0x5eed, uint64(w.Index)+7))}
}

// drawSeverity draws how hard the class hits: the failing share, the
// slowdown, the surge and the endpoints a release broke. It is setup's
// first step, and all the expectation needs (affectedShare).
func (e *emitter) drawSeverity() {
	r := e.r
	e.failP = 0.25 + r.Float64()*0.6
	e.slowdown = 3 + r.Float64()*7
	e.surge = 3 + r.Float64()*6
	e.broken = make([]bool, len(e.w.Topo.Endpoints))
	for i := range e.broken {
		e.broken[i] = i == 0 || r.Float64() < 0.5
	}
	if e.w.Has(OneEndpoint) {
		for i := range e.broken {
			e.broken[i] = i == 0
		}
	}
}

func (e *emitter) setup() {
	r, w := e.r, e.w
	e.drawSeverity()
	e.pidBefore = 1000 + r.IntN(60000)
	e.pidAfter = e.pidBefore + 1 + r.IntN(400)
	e.sevStyle = r.IntN(3)
	e.qualityNS = r.IntN(3)
	e.promptAttr = r.Float64() < 0.5
	e.baseErrP = 0.002 + r.Float64()*0.008
	e.hostName = fmt.Sprintf("%s-%x", w.Topo.Affected, r.Uint32()&0xfffff)
	e.runtimeVer = map[string]string{"go": "go1.23.4", "java": "21.0.5", "python": "3.12.7", "nodejs": "20.18.1", "dotnet": "8.0.11"}[w.Topo.Lang]
	e.excType, e.excMsg = exceptionFor(r, w.Topo.Lang, w.Class, w.Topo)
	if w.Class == "resource_saturation" {
		span := w.Now.Sub(w.Onset)
		if span >= 4*time.Minute {
			e.restartAt = w.Onset.Add(time.Duration(float64(span) * (0.4 + 0.3*r.Float64()))).Truncate(time.Second)
			e.restartGap = time.Duration(60+r.IntN(90)) * time.Second
		}
	}
	e.drawShapes(rand.New(rand.NewPCG(w.Seed^0x3535, uint64(w.Index)+3)))
	// A short unrelated error spike early in the baseline: a robust onset
	// must not move to it.
	if base := w.Onset.Sub(w.Start); base > 45*time.Minute && r.Float64() < 0.3 {
		e.spikeAt = w.Start.Add(time.Duration(r.Int64N(int64(base - 30*time.Minute)))).Truncate(time.Minute)
	}
}

// drawShapes draws the shapes' parameters from their own stream.
func (e *emitter) drawShapes(rs *rand.Rand) {
	w := e.w
	if w.Has(EarlierEpisode) {
		gap := time.Duration(5+rs.IntN(25)) * time.Minute
		length := time.Duration(8+rs.IntN(40)) * time.Minute
		// It ends before the release too: an episode under way across the
		// marker leaves no sound onset after it (the gate must deny).
		end := w.Onset
		if d, ok := w.AffectedDeploy(); ok && d.At.Before(end) {
			end = d.At
		}
		e.episodeTo = end.Add(-gap).Truncate(time.Minute)
		e.episodeFrom = e.episodeTo.Add(-length)
		if min := w.Start.Add(20 * time.Minute); e.episodeFrom.Before(min) {
			e.episodeFrom = min
		}
		e.episodeSlow = 2.5 + rs.Float64()*3
	}
	if w.Has(DownstreamCallee) {
		e.abortP = 0.4 + rs.Float64()*0.6
		// It gives up before the dependency usually answers (~25 ms).
		e.abortAfter = time.Duration(logUniform(rs, 1, 12) * float64(time.Millisecond))
		e.outlive = time.Duration(logUniform(rs, 20, 400) * float64(time.Millisecond))
	}
	if w.Has(InSpanRetries) {
		names := []struct {
			name     string
			attempts bool
		}{{"http.request.resend_count", false}, {"retry_count", false}, {"llm.request.retries", false}, {"app.retry.attempt", true},
			{"client.retries", false}, {"sdk.attempts", true}, {"num_retries", false}}
		n := pick(rs, names)
		e.retryAttr, e.retryAttempts = n.name, n.attempts
		e.retryLog = rs.IntN(len(retryLogStyles))
	}
	if w.Has(QueueConsumer) {
		e.queue = drawQueue(rs)
	}
}

// retryLogStyles are the retry log lines of common clients, by retry
// number and the dependency's host.
var retryLogStyles = []func(n int, host string) string{
	func(n int, _ string) string {
		return fmt.Sprintf("Retrying request to /chat/completions in 0.%d seconds", 4+n)
	},
	func(n int, host string) string {
		return fmt.Sprintf("[DEBUG] POST https://%s/v1/complete: retrying in %ds (%d left)", host, n, 4-min(n, 4))
	},
	func(n int, _ string) string {
		return fmt.Sprintf("Retry 'upstream' recorded a failed retry attempt. Number of retry attempts: '%d'", n)
	},
	func(n int, host string) string {
		return fmt.Sprintf("grpc-previous-rpc-attempts=%d calling %s", n, host)
	},
	func(n int, _ string) string { return fmt.Sprintf("attempt %d of 5 failed, will retry", n) },
}

// active reports whether the regression is under way at t.
func (e *emitter) active(t time.Time) bool { return !t.Before(e.w.Onset) }

// version is the affected service's version serving a request at t: a
// deploy rolls out over a minute and a half.
func (e *emitter) version(t time.Time) string {
	w := e.w
	d, ok := w.AffectedDeploy()
	if !ok {
		return w.NewVersion()
	}
	if t.Before(d.At) {
		return d.Previous
	}
	ramp := 90 * time.Second
	if gap := w.Onset.Sub(d.At); gap > 0 && gap < 2*ramp {
		ramp = gap / 2
	}
	if t.Sub(d.At) < ramp && e.r.Float64() > float64(t.Sub(d.At))/float64(ramp) {
		return d.Previous
	}
	return d.Version
}

func (e *emitter) pid(t time.Time) int {
	if !e.restartAt.IsZero() && !t.Before(e.restartAt) {
		return e.pidAfter
	}
	return e.pidBefore
}

// inGap reports whether t falls in the minutes the affected process was down.
func (e *emitter) inGap(t time.Time) bool {
	return !e.restartAt.IsZero() && !t.Before(e.restartAt) && t.Before(e.restartAt.Add(e.restartGap))
}

func (e *emitter) resource(svc, version string, t time.Time) map[string]any {
	w := e.w
	m := map[string]any{"service.name": svc, "service.version": version, "deployment.environment": "production"}
	if w.Semconv == SemconvNew {
		delete(m, "deployment.environment")
		m["deployment.environment.name"] = "production"
	}
	m["telemetry.sdk.language"] = w.Topo.Lang
	if svc == w.Topo.Affected {
		m["process.pid"] = e.pid(t)
		m["process.runtime.name"] = map[string]string{"go": "go", "java": "OpenJDK Runtime Environment", "python": "CPython", "nodejs": "nodejs", "dotnet": ".NET"}[w.Topo.Lang]
		m["process.runtime.version"] = e.runtimeVer
		m["host.name"] = e.hostName
		m["service.namespace"] = w.Topo.Project
	}
	return m
}

func (e *emitter) hex(n int) string {
	const digits = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = digits[e.r.IntN(16)]
	}
	return string(b)
}

// lognormal draws a latency around median ms.
func (e *emitter) lognormal(median float64) time.Duration {
	return time.Duration(median * math.Exp(e.r.NormFloat64()*0.35) * float64(time.Millisecond))
}

func (e *emitter) poisson(lambda float64) int {
	if lambda <= 0 {
		return 0
	}
	if lambda > 30 {
		return max(0, int(math.Round(lambda+math.Sqrt(lambda)*e.r.NormFloat64())))
	}
	l, k, p := math.Exp(-lambda), 0, 1.0
	for {
		p *= e.r.Float64()
		if p <= l {
			return k
		}
		k++
	}
}

// run walks the recording minute by minute.
func (e *emitter) run() {
	w := e.w
	e.deployMarkers()
	per := w.ArrivalsPerMinute()
	neighbourPer := math.Max(0.5, w.StoredPerMinute()*0.15)
	for m := w.Start.Truncate(time.Minute); m.Before(w.Now); m = m.Add(time.Minute) {
		factor := 1.0
		if w.Class == "traffic_surge" && e.active(m) {
			factor = e.surge
		}
		n := e.poisson(per * factor)
		for i := 0; i < n; i++ {
			t := m.Add(time.Duration(e.r.Int64N(int64(time.Minute))))
			if t.Before(w.Start) || !t.Before(w.Now) || e.inGap(t) {
				continue
			}
			e.request(t)
		}
		for i, k := 0, e.poisson(neighbourPer); i < k; i++ {
			t := m.Add(time.Duration(e.r.Int64N(int64(time.Minute))))
			if t.Before(w.Start) || !t.Before(w.Now) {
				continue
			}
			e.neighbour(t)
		}
		e.minuteLogs(m)
	}
	e.adversarialText()
}
