package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"syscall"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/bus"
	"agentk/platform/fabric"
	"agentk/platform/topology"
	"agentk/services/investigator/scripted"
	"agentk/services/sandbox/fakesignoz"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// pipelineIncident is replayed over and over: a deployment-class incident the
// gate allows, so every check (including the KV reads) runs.
const pipelineIncident = "retry-storm-01"

// trace is what one alert caused on the bus, up to its decision, as the
// envelopes that travelled (the baseline sends the same bytes again).
type trace struct {
	alert, report, review, decision envelope.Envelope
	tools, evidence                 []envelope.Envelope
	// toolAt is when each tool call was seen on the bus.
	toolAt []time.Time
}

// watcher sees every agentk message on the fabric, as an operator would,
// each stamped with when it arrived.
type watcher struct {
	msgs chan seen
}

type seen struct {
	*nats.Msg
	at time.Time
}

func watch(tb testing.TB, f *fabric.Fabric) *watcher {
	tb.Helper()
	c, err := f.Admin(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = c.Close() })
	w := &watcher{msgs: make(chan seen, 4096)}
	if _, err := c.NATS().Subscribe("agentk.>", func(m *nats.Msg) { w.msgs <- seen{m, time.Now()} }); err != nil {
		tb.Fatal(err)
	}
	if err := c.NATS().Flush(); err != nil {
		tb.Fatal(err)
	}
	return w
}

// until collects messages until a decision (for incident, when set) arrives.
func (w *watcher) until(tb testing.TB, incident string, within time.Duration) trace {
	tb.Helper()
	var tr trace
	deadline := time.NewTimer(within)
	defer deadline.Stop()
	for {
		select {
		case <-deadline.C:
			tb.Fatalf("no decision for %q within %s", incident, within)
		case m := <-w.msgs:
			env, err := envelope.Parse(m.Data)
			if err != nil {
				continue
			}
			switch m.Subject {
			case contracts.SubjectAlert:
				tr.alert = env
			case contracts.SubjectToolCall:
				tr.tools = append(tr.tools, env)
				tr.toolAt = append(tr.toolAt, m.at)
			case contracts.SubjectEvidence:
				tr.evidence = append(tr.evidence, env)
			case contracts.SubjectReport:
				tr.report = env
			case contracts.SubjectReview:
				tr.review = env
			case contracts.SubjectDecision:
				var d contracts.DecisionV1
				if err := json.Unmarshal(env.Payload, &d); err != nil {
					tb.Fatal(err)
				}
				if incident == "" || d.IncidentID == incident {
					tr.decision = env
					return tr
				}
			}
		}
	}
}

// BenchmarkPipeline measures, in one run, webhook alert → signed decision
// through all seven services with a scripted model that answers at once
// ("real"), and the same bus traffic with handlers that do nothing but make
// the same SigNoz queries against the same fake SigNoz ("bus"): the alert
// published and consumed, each tool call's request/reply with its SigNoz
// queries and its evidence stored (KV agentk_evidence) and published, the
// report, the review and its KV write, the reviewer's and the gate's reads
// of the evidence the report names, the gate's three KV reads and the
// decision, every one of them with the envelopes the real run sent.
// real/bus is what the services themselves cost.
//
//	go test -run '^$' -bench 'Pipeline$' -benchtime 30x ./e2e/bench
func BenchmarkPipeline(b *testing.B) {
	inc := loadIncident(b, pipelineIncident)
	p := startPipeline(b, inc, scripted.Oracle, latencies{})
	w := watch(b, p.f)
	// One untimed incident warms every service up and records its traffic.
	since := time.Now()
	ids := p.post(b, alertBody(b, inc.AlertJSON, 0))
	tr := w.until(b, ids[0], 60*time.Second)
	if tr.report.Payload == nil || tr.review.Payload == nil || len(tr.tools) == 0 {
		b.Fatalf("incomplete trace: %d tool calls, report %v, review %v", len(tr.tools), tr.report.Payload != nil, tr.review.Payload != nil)
	}
	queries := callQueries(p.fake.Requests(), since, tr.toolAt)
	seq := 0

	b.Run("real", func(b *testing.B) {
		cpu := processCPU(b)
		lat := p.measure(b, w, &seq, b.N, nil)
		reportCPU(b, cpu)
		percentiles(b, "", lat)
		b.ReportMetric(float64(len(tr.tools)), "tool-calls")
		b.ReportMetric(float64(countAll(queries)), "queries")
	})

	b.Run("bus", func(b *testing.B) {
		run := busOnly(b, tr, queries, p.signozURL)
		lat := make([]time.Duration, 0, b.N)
		cpu := processCPU(b)
		b.ResetTimer()
		for i := range b.N {
			s := time.Now()
			run(i)
			lat = append(lat, time.Since(s))
		}
		b.StopTimer()
		reportCPU(b, cpu)
		percentiles(b, "", lat)
		b.ReportMetric(float64(len(tr.tools)), "tool-calls")
		b.ReportMetric(float64(countAll(queries)), "queries")
	})
}

// processCPU is the CPU time (user and system) this process has used so far:
// the fake SigNoz, the NATS server and every service run in it.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the process's CPU time per incident since since, as
// cpu-ms: unlike the latencies, it does not grow with what else the machine
// runs, so pipeline ÷ baseline stays comparable on a loaded machine (the
// idle services of the other half cost both halves the same).
func reportCPU(b *testing.B, since time.Duration) {
	used := processCPU(b) - since
	b.ReportMetric(float64(used.Microseconds())/1000/float64(b.N), "cpu-ms")
}

// Injected latencies of BenchmarkPipelineLatency: a SigNoz query and a model
// turn as a production deployment sees them.
const (
	benchQueryLatency = 80 * time.Millisecond
	benchTurnLatency  = 1500 * time.Millisecond
)

// BenchmarkPipelineLatency measures alert → signed decision with realistic
// latencies injected (every SigNoz query answers after 80 ms, every model
// turn after 1.5 s) beside the critical path of the same incident: its
// model turns, one after another, and each tool call's dependent query
// stages (service_overview: its nine queries, then the failing spans of the
// services it examines, then their traces; every other tool one query), the
// tool calls one after another as the investigator makes them. Nothing else
// on the path waits: the ratio is what the pipeline adds to the waits it
// cannot avoid.
//
//	go test -run '^$' -bench PipelineLatency -benchtime 5x ./e2e/bench
func BenchmarkPipelineLatency(b *testing.B) {
	inc := loadIncident(b, pipelineIncident)
	p := startPipeline(b, inc, scripted.Oracle, latencies{query: benchQueryLatency, turn: benchTurnLatency})
	w := watch(b, p.f)
	seq := 0
	p.measure(b, w, &seq, 1, nil) // an untimed incident warms every service up
	b.ResetTimer()
	var paths []time.Duration
	lat := p.measure(b, w, &seq, b.N, func(since time.Time, turns int64, tr trace) {
		qs := callQueries(p.fake.Requests(), since, tr.toolAt)
		path := time.Duration(turns) * benchTurnLatency
		for _, q := range qs {
			path += time.Duration(stages(q)) * benchQueryLatency
		}
		paths = append(paths, path)
	})
	percentiles(b, "", lat)
	slices.Sort(paths)
	crit := paths[len(paths)/2]
	b.ReportMetric(float64(crit.Microseconds())/1000, "critical-path-ms")
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2])/float64(crit), "x-critical-path")
}

// measure sends n fresh incidents one after another and returns each one's
// alert → decision time, timed; seen, when set, learns each incident's
// start, model turns and bus traffic, untimed.
func (p *pipeline) measure(b *testing.B, w *watcher, seq *int, n int, seen func(since time.Time, turns int64, tr trace)) []time.Duration {
	bodies := make([][]byte, n)
	for i := range bodies {
		*seq++
		bodies[i] = alertBody(b, p.inc.AlertJSON, *seq)
	}
	lat := make([]time.Duration, 0, n)
	b.ResetTimer()
	for i := range n {
		turns := p.model.n.Load()
		s := time.Now()
		ids := p.post(b, bodies[i])
		if len(ids) != 1 {
			b.Fatalf("ingester filed %v", ids)
		}
		tr := w.until(b, ids[0], 60*time.Second)
		lat = append(lat, time.Since(s))
		if seen != nil {
			b.StopTimer()
			seen(s, p.model.n.Load()-turns, tr)
			b.StartTimer()
		}
	}
	b.StopTimer()
	return lat
}

// callQueries splits the SigNoz query bodies received since `since` among
// the tool calls seen at toolAt: a query belongs to the last call seen
// before it (the first call when the watcher saw even that one late).
func callQueries(reqs []fakesignoz.RecordedRequest, since time.Time, toolAt []time.Time) [][][]byte {
	out := make([][][]byte, len(toolAt))
	for _, r := range reqs {
		if r.Path != queryPath || r.At.Before(since) {
			continue
		}
		k := 0
		for i, at := range toolAt {
			if !r.At.Before(at) {
				k = i
			}
		}
		if len(out) > 0 {
			out[k] = append(out[k], r.Body)
		}
	}
	return out
}

// stages is the dependent query stages of one tool call's queries: one for
// a single query or service_overview's first nine; its follow-ups (the
// failing spans of the services it examines) a second; their traces
// (trace_id IN (...)) a third.
func stages(queries [][]byte) int {
	switch {
	case len(queries) == 0:
		return 0
	case len(queries) <= 9:
		return 1
	}
	for _, q := range queries {
		if bytes.Contains(q, []byte("trace_id IN (")) {
			return 3
		}
	}
	return 2
}

func countAll(qs [][][]byte) int {
	n := 0
	for _, q := range qs {
		n += len(q)
	}
	return n
}

// busOnly wires do-nothing handlers with the services' roles and permissions
// on a fresh embedded fabric and returns a function that sends one alert
// through them and waits for the decision.
func busOnly(b *testing.B, tr trace, queries [][][]byte, signozURL string) func(i int) {
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	f := embedded(b)
	conn := func(role string) *bus.Conn {
		c, err := f.Connect(ctx, role)
		if err != nil {
			b.Fatal(err)
		}
		return c
	}
	ing, sbx, inv, rev, gate := conn(envelope.RoleIngester), conn(envelope.RoleSandbox), conn(envelope.RoleInvestigator), conn(envelope.RoleReviewer), conn(envelope.RoleGate)
	kv := func(c *bus.Conn, bucket string) interface {
		Get(context.Context, string) (any, error)
	} {
		h, err := c.KeyValue(ctx, bucket)
		if err != nil {
			b.Fatal(err)
		}
		return kvGetter{h}
	}
	reports, err := rev.KeyValue(ctx, topology.BucketReports)
	if err != nil {
		b.Fatal(err)
	}
	stored, err := sbx.KeyValue(ctx, topology.BucketEvidence)
	if err != nil {
		b.Fatal(err)
	}
	var named contracts.ReportV1
	if err := json.Unmarshal(tr.report.Payload, &named); err != nil {
		b.Fatal(err)
	}
	refs := make([]string, 0, len(named.EvidenceRefs))
	for _, r := range named.EvidenceRefs {
		refs = append(refs, r.Digest)
	}
	revEv, gateEv := kv(rev, topology.BucketEvidence), kv(gate, topology.BucketEvidence)
	fetch := func(ctx context.Context, g interface {
		Get(context.Context, string) (any, error)
	}) error {
		for _, d := range refs {
			if _, err := g.Get(ctx, d); err != nil {
				return err
			}
		}
		return nil
	}
	releases, cooldown, freezes := kv(gate, topology.BucketReleases), kv(gate, topology.BucketCooldown), kv(gate, topology.BucketFreezes)

	evidence := 0
	stop, err := sbx.Serve(ctx, contracts.SubjectToolCall, "sandbox", func(ctx context.Context, env envelope.Envelope, md map[string]string) (envelope.Envelope, error) {
		if err := replayQueries(ctx, signozURL, queries[evidence%len(queries)]); err != nil {
			return envelope.Envelope{}, err
		}
		ev := tr.evidence[evidence%len(tr.evidence)]
		evidence++
		if _, err := stored.Put(ctx, ev.Digest(), ev.Marshal()); err != nil {
			return envelope.Envelope{}, err
		}
		if err := sbx.Publish(ctx, contracts.SubjectEvidence, bus.Out{Envelope: ev, MsgID: fmt.Sprintf("bench.ev.%d", evidence)}, md); err != nil {
			return envelope.Envelope{}, err
		}
		return ev, nil
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = stop() })

	router := func(c *bus.Conn, name, subject string, h bus.HandlerFunc) {
		r, err := c.NewRouter(nil)
		if err != nil {
			b.Fatal(err)
		}
		r.Handle(name, subject, h)
		errc := make(chan error, 1)
		go func() { errc <- r.Run(ctx) }()
		select {
		case <-r.Running():
		case err := <-errc:
			b.Fatal(err)
		}
	}
	id := func(m bus.Message) string { return m.Metadata["nats-msg-id"] }
	router(inv, "bench_investigate", contracts.SubjectAlert, func(ctx context.Context, m bus.Message) ([]bus.Out, error) {
		for _, t := range tr.tools {
			if _, err := inv.Request(ctx, contracts.SubjectToolCall, t); err != nil {
				return nil, err
			}
		}
		return []bus.Out{{Envelope: tr.report, MsgID: "report." + id(m)}}, nil
	})
	router(rev, "bench_review", contracts.SubjectReport, func(ctx context.Context, m bus.Message) ([]bus.Out, error) {
		if err := fetch(ctx, revEv); err != nil {
			return nil, err
		}
		if _, err := reports.Put(ctx, "bench", tr.review.Payload); err != nil {
			return nil, err
		}
		return []bus.Out{{Envelope: tr.review, MsgID: "review." + id(m)}}, nil
	})
	router(gate, "bench_gate", contracts.SubjectReview, func(ctx context.Context, m bus.Message) ([]bus.Out, error) {
		if err := fetch(ctx, gateEv); err != nil {
			return nil, err
		}
		for _, g := range []interface {
			Get(context.Context, string) (any, error)
		}{releases, cooldown, freezes} {
			if _, err := g.Get(ctx, "shop-api"); err != nil {
				return nil, err
			}
		}
		return []bus.Out{{Envelope: tr.decision, MsgID: "decision." + id(m)}}, nil
	})

	w := watch(b, f)
	return func(i int) {
		if err := ing.Publish(ctx, contracts.SubjectAlert, bus.Out{Envelope: tr.alert, MsgID: fmt.Sprintf("bench.%d", i)}, nil); err != nil {
			b.Fatal(err)
		}
		w.until(b, "", 30*time.Second)
	}
}

// kvGetter reads one key; a missing key is an answer, not an error.
type kvGetter struct{ kv jetstream.KeyValue }

func (g kvGetter) Get(ctx context.Context, key string) (any, error) {
	e, err := g.kv.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, nil
	}
	return e, err
}

// replayQueries sends one tool call's SigNoz queries to the fake at once and
// reads every answer.
func replayQueries(ctx context.Context, signozURL string, bodies [][]byte) error {
	errs := make(chan error, len(bodies))
	for _, body := range bodies {
		go func() {
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, signozURL+queryPath, bytes.NewReader(body))
			if err != nil {
				errs <- err
				return
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("SIGNOZ-API-KEY", signozKey)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				errs <- err
				return
			}
			defer resp.Body.Close()
			_, err = io.Copy(io.Discard, resp.Body)
			if err == nil && resp.StatusCode != http.StatusOK {
				err = fmt.Errorf("fake SigNoz: %s", resp.Status)
			}
			errs <- err
		}()
	}
	var first error
	for range bodies {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}
