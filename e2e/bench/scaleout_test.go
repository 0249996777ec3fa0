package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/topology"
	"agentk/services/investigator/scripted"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
)

// decided watches the decisions published on the fabric: every publish of a
// decision, by incident, duplicates included (JetStream drops a duplicate
// of a Nats-Msg-Id, but a core subscriber still sees it).
type decided struct {
	sub *nats.Subscription
	ch  chan contracts.DecisionV1
}

func (p *pipeline) watchDecisions(tb testing.TB) *decided {
	tb.Helper()
	c, err := p.f.Admin(context.Background())
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = c.Close() })
	d := &decided{ch: make(chan contracts.DecisionV1, 4096)}
	d.sub, err = c.NATS().Subscribe(contracts.SubjectDecision, func(m *nats.Msg) {
		var dec contracts.DecisionV1
		_ = open(m.Data, &dec)
		d.ch <- dec
	})
	require.NoError(tb, err)
	require.NoError(tb, c.NATS().Flush())
	return d
}

// open decodes the payload of a sealed message into v (left as it is when
// it does not parse; the assertions then fail on its empty ids).
func open(data []byte, v any) error {
	env, err := envelope.Parse(data)
	if err != nil {
		return err
	}
	return json.Unmarshal(env.Payload, v)
}

// until waits until every incident of ids has a decision; it returns how
// many publishes each one had, and the decisions.
func (d *decided) until(tb testing.TB, ids map[string]bool, within time.Duration) (map[string]int, []contracts.DecisionV1) {
	tb.Helper()
	seen := map[string]int{}
	var decs []contracts.DecisionV1
	left := len(ids)
	deadline := time.NewTimer(within)
	defer deadline.Stop()
	for left > 0 {
		select {
		case <-deadline.C:
			tb.Fatalf("%d of %d incidents without a decision after %s", left, len(ids), within)
		case dec := <-d.ch:
			if !ids[dec.IncidentID] {
				continue
			}
			if seen[dec.IncidentID]++; seen[dec.IncidentID] == 1 {
				left--
				decs = append(decs, dec)
			}
		}
	}
	return seen, decs
}

// stored counts the messages stored on subject by key(payload): what the
// next service consumes.
func (p *pipeline) stored(tb testing.TB, subject string, key func(data []byte) string) map[string]int {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := p.f.Admin(ctx)
	require.NoError(tb, err)
	defer func() { _ = c.Close() }()
	name, ok := topology.StreamFor(subject)
	require.True(tb, ok)
	cons, err := c.JetStream().OrderedConsumer(ctx, name, jetstream.OrderedConsumerConfig{FilterSubjects: []string{subject}})
	require.NoError(tb, err)
	out := map[string]int{}
	for {
		info, err := cons.Info(ctx)
		require.NoError(tb, err)
		if info.NumPending == 0 {
			return out
		}
		batch, err := cons.FetchNoWait(int(info.NumPending))
		require.NoError(tb, err)
		for m := range batch.Messages() {
			out[key(m.Data())]++
		}
		require.NoError(tb, batch.Error())
	}
}

// storm files n fresh incidents, round robin over the replicas' ingesters,
// and waits until each has its decision. It returns the incidents, the
// publishes of a decision each one had, and the decisions.
func (p *pipeline) storm(tb testing.TB, d *decided, seq *int, n int, within time.Duration) (map[string]bool, map[string]int, []contracts.DecisionV1) {
	tb.Helper()
	bodies := make([][]byte, n)
	for i := range bodies {
		*seq++
		bodies[i] = alertBody(tb, p.inc.AlertJSON, *seq)
	}
	ids := map[string]bool{}
	for i, body := range bodies {
		filed := p.postTo(tb, p.ingestURLs[i%len(p.ingestURLs)], body)
		require.Len(tb, filed, 1)
		ids[filed[0]] = true
	}
	require.Len(tb, ids, n, "every alert opened its own incident")
	seen, decs := d.until(tb, ids, within)
	return ids, seen, decs
}

// requireOneDecisionEach fails unless the decision stream holds exactly one
// decision for every incident of ids.
func (p *pipeline) requireOneDecisionEach(tb testing.TB, ids map[string]bool) {
	tb.Helper()
	stored := p.stored(tb, contracts.SubjectDecision, func(data []byte) string {
		var d contracts.DecisionV1
		_ = open(data, &d)
		return d.IncidentID
	})
	for id := range ids {
		require.Equal(tb, 1, stored[id], "decisions stored for %s", id)
	}
}

// TestScaleOutOneDecisionPerIncident runs three replicas of every stateless
// service (and two deployers) over one fabric and files a storm of
// incidents across the three ingesters: every incident ends with exactly one
// stored decision, whichever replicas handled its messages.
func TestScaleOutOneDecisionPerIncident(t *testing.T) {
	inc := loadIncident(t, pipelineIncident)
	p := startReplicas(t, inc, scripted.Oracle, latencies{}, 3)
	d := p.watchDecisions(t)
	seq := 0
	ids, published, decs := p.storm(t, d, &seq, 12, 2*time.Minute)
	p.requireOneDecisionEach(t, ids)
	for id, n := range published {
		require.Equal(t, 1, n, "decisions published for %s", id)
	}
	p.approveOnEveryBridge(t, decs[:3])
}

// stormSize is the number of incidents of BenchmarkScaleOut's storm
// (AGENTK_BENCH_STORM, default 200).
func stormSize(tb testing.TB) int {
	n := 200
	if v := os.Getenv("AGENTK_BENCH_STORM"); v != "" {
		var err error
		n, err = strconv.Atoi(v)
		require.NoError(tb, err, "AGENTK_BENCH_STORM")
	}
	return n
}

// BenchmarkScaleOut measures a storm of incidents (AGENTK_BENCH_STORM,
// default 200) through one replica of every stateless service and then
// through three (and two deployers), each over its own fabric, with
// latencies injected (SigNoz 80 ms a query, model 1.5 s a turn): the drain
// time from the first webhook to the last decision. Each incident must end
// with exactly one stored decision. replicas_3 reports its speed-up over
// replicas_1 of the same run. AGENTK_BENCH_CLUSTER=1 runs both over a
// three-node JetStream cluster of embedded servers in this process, streams
// and buckets in three replicas, instead of one embedded server.
//
//	go test -run '^$' -bench ScaleOut -benchtime 1x -timeout 60m ./e2e/bench
func BenchmarkScaleOut(b *testing.B) {
	inc := loadIncident(b, pipelineIncident)
	n := stormSize(b)
	lat := latencies{query: benchQueryLatency, turn: benchTurnLatency}
	var one time.Duration
	for _, replicas := range []int{1, 3} {
		b.Run(fmt.Sprintf("replicas_%d", replicas), func(b *testing.B) {
			f, nodes := embedded(b), 1
			if os.Getenv("AGENTK_BENCH_CLUSTER") == "1" {
				f, nodes = cluster3(b), 3
			}
			p := startReplicasOn(b, f, inc, scripted.Oracle, lat, replicas)
			d := p.watchDecisions(b)
			seq := 0
			p.storm(b, d, &seq, 1, time.Minute) // warms every replica's connections up
			var drain time.Duration
			for range b.N {
				s := time.Now()
				ids, _, _ := p.storm(b, d, &seq, n, time.Duration(n)*10*time.Second)
				drain = time.Since(s)
				b.StopTimer()
				p.requireOneDecisionEach(b, ids)
				b.StartTimer()
			}
			b.ReportMetric(drain.Seconds(), "drain-s")
			b.ReportMetric(float64(nodes), "nats-nodes")
			b.ReportMetric(float64(n)/drain.Seconds(), "incidents/s")
			if replicas == 1 {
				one = drain
			} else if one > 0 {
				b.ReportMetric(one.Seconds()/drain.Seconds(), "x-faster-than-1")
			}
		})
	}
}
