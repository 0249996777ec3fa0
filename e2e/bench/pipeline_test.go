package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/bus"
	"agentk/platform/fabric"
	"agentk/platform/topology"
	"agentk/services/investigator/scripted"

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
}

// watcher sees every agentk message on the fabric, as an operator would.
type watcher struct {
	msgs chan *nats.Msg
}

func watch(tb testing.TB, f *fabric.Fabric) *watcher {
	tb.Helper()
	c, err := f.Admin(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = c.Close() })
	w := &watcher{msgs: make(chan *nats.Msg, 4096)}
	if _, err := c.NATS().ChanSubscribe("agentk.>", w.msgs); err != nil {
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
// ("real"), and the same bus traffic with handlers that do nothing ("bus"):
// the alert published and consumed, each tool call's request/reply with its
// evidence published, the report, the review and its KV write, the gate's
// three KV reads and the decision, every one of them with the envelopes the
// real run sent. real/bus is what the services themselves cost.
//
//	go test -run '^$' -bench Pipeline -benchtime 30x ./e2e/bench
func BenchmarkPipeline(b *testing.B) {
	inc := loadIncident(b, pipelineIncident)
	p := startPipeline(b, inc, scripted.Oracle)
	w := watch(b, p.f)
	// One untimed incident warms every service up and records its traffic.
	ids := p.post(b, alertBody(b, inc.AlertJSON, 0))
	tr := w.until(b, ids[0], 60*time.Second)
	if tr.report.Payload == nil || tr.review.Payload == nil || len(tr.tools) == 0 {
		b.Fatalf("incomplete trace: %d tool calls, report %v, review %v", len(tr.tools), tr.report.Payload != nil, tr.review.Payload != nil)
	}
	seq := 0

	b.Run("real", func(b *testing.B) {
		bodies := make([][]byte, b.N)
		for i := range bodies {
			seq++
			bodies[i] = alertBody(b, inc.AlertJSON, seq)
		}
		lat := make([]time.Duration, 0, b.N)
		b.ResetTimer()
		for i := range b.N {
			s := time.Now()
			ids := p.post(b, bodies[i])
			if len(ids) != 1 {
				b.Fatalf("ingester filed %v", ids)
			}
			w.until(b, ids[0], 60*time.Second)
			lat = append(lat, time.Since(s))
		}
		b.StopTimer()
		percentiles(b, "", lat)
		b.ReportMetric(float64(len(tr.tools)), "tool-calls")
	})

	b.Run("bus", func(b *testing.B) {
		run := busOnly(b, tr)
		lat := make([]time.Duration, 0, b.N)
		b.ResetTimer()
		for i := range b.N {
			s := time.Now()
			run(i)
			lat = append(lat, time.Since(s))
		}
		b.StopTimer()
		percentiles(b, "", lat)
		b.ReportMetric(float64(len(tr.tools)), "tool-calls")
	})
}

// busOnly wires do-nothing handlers with the services' roles and permissions
// on a fresh embedded fabric and returns a function that sends one alert
// through them and waits for the decision.
func busOnly(b *testing.B, tr trace) func(i int) {
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
	releases, cooldown, freezes := kv(gate, topology.BucketReleases), kv(gate, topology.BucketCooldown), kv(gate, topology.BucketFreezes)

	evidence := 0
	stop, err := sbx.Serve(ctx, contracts.SubjectToolCall, "sandbox", func(ctx context.Context, env envelope.Envelope, md map[string]string) (envelope.Envelope, error) {
		ev := tr.evidence[evidence%len(tr.evidence)]
		evidence++
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
		if _, err := reports.Put(ctx, "bench", tr.review.Payload); err != nil {
			return nil, err
		}
		return []bus.Out{{Envelope: tr.review, MsgID: "review." + id(m)}}, nil
	})
	router(gate, "bench_gate", contracts.SubjectReview, func(ctx context.Context, m bus.Message) ([]bus.Out, error) {
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
