package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/contracts/incident"
	"agentk/platform/topology"
	"agentk/services/deployer"
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
	ch  chan arrival
}

func (p *pipeline) watchDecisions(tb testing.TB) *decided {
	tb.Helper()
	c, err := p.f.Admin(context.Background())
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = c.Close() })
	d := &decided{ch: make(chan arrival, 4096)}
	d.sub, err = c.NATS().Subscribe(contracts.SubjectDecision, func(m *nats.Msg) {
		var dec contracts.DecisionV1
		_ = open(m.Data, &dec)
		d.ch <- arrival{dec: dec, at: time.Now()}
	})
	require.NoError(tb, err)
	require.NoError(tb, c.NATS().Flush())
	return d
}

// arrival is a decision as the watcher received it.
type arrival struct {
	dec contracts.DecisionV1
	at  time.Time
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

// tally is what a storm's decisions came to so far.
type tally struct {
	seen map[string]int         // publishes of a decision, by incident
	decs []contracts.DecisionV1 // each incident's first decision, in order
	last time.Time              // when the latest incident got its first
}

// until waits until every incident of ids has a decision; it returns how
// many publishes each one had, and the decisions.
func (d *decided) until(tb testing.TB, ids map[string]bool, within time.Duration) (map[string]int, []contracts.DecisionV1) {
	tb.Helper()
	deadline := time.NewTimer(within)
	defer deadline.Stop()
	t := &tally{seen: map[string]int{}}
	d.wait(tb, ids, t, len(ids), deadline.C)
	return t.seen, t.decs
}

// wait takes decisions into t until want incidents of ids have one.
func (d *decided) wait(tb testing.TB, ids map[string]bool, t *tally, want int, deadline <-chan time.Time) {
	tb.Helper()
	for len(t.decs) < want {
		select {
		case <-deadline:
			tb.Fatalf("%d of %d incidents without a decision", len(ids)-len(t.decs), len(ids))
		case a := <-d.ch:
			if !ids[a.dec.IncidentID] {
				continue
			}
			if t.seen[a.dec.IncidentID]++; t.seen[a.dec.IncidentID] == 1 {
				t.decs = append(t.decs, a.dec)
				t.last = a.at
			}
		}
	}
}

// stored counts the messages stored on subject by key(payload): what the
// next service consumes. A read that fails (a stream or its consumer
// electing a leader on a loaded cluster) is read again from the start, for
// up to a minute.
func (p *pipeline) stored(tb testing.TB, subject string, key func(data []byte) string) map[string]int {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := p.f.Admin(ctx)
	require.NoError(tb, err)
	defer func() { _ = c.Close() }()
	name, ok := topology.StreamFor(subject)
	require.True(tb, ok)
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		msgs, err := readStream(ctx, c.JetStream(), name, subject)
		if err == nil {
			out := map[string]int{}
			for _, m := range msgs {
				out[key(m)]++
			}
			return out
		}
		select {
		case <-ctx.Done():
			tb.Fatalf("reading %s from %s: %v", subject, name, err)
		case <-tick.C:
			tb.Logf("reading %s from %s again: %v", subject, name, err)
		}
	}
}

// readStream returns the payloads of every message stored on subject in
// the stream name.
func readStream(ctx context.Context, js jetstream.JetStream, name, subject string) ([][]byte, error) {
	cons, err := js.OrderedConsumer(ctx, name, jetstream.OrderedConsumerConfig{FilterSubjects: []string{subject}})
	if err != nil {
		return nil, err
	}
	var out [][]byte
	for {
		info, err := cons.Info(ctx)
		if err != nil {
			return nil, err
		}
		if info.NumPending == 0 {
			return out, nil
		}
		batch, err := cons.FetchNoWait(int(info.NumPending))
		if err != nil {
			return nil, err
		}
		for m := range batch.Messages() {
			out = append(out, m.Data())
		}
		if err := batch.Error(); err != nil {
			return nil, err
		}
	}
}

// storm files n fresh incidents, round robin over the replicas' ingesters,
// and waits until each has its decision. It returns the incidents, the
// publishes of a decision each one had, and the decisions.
func (p *pipeline) storm(tb testing.TB, d *decided, seq *int, n int, within time.Duration) (map[string]bool, map[string]int, []contracts.DecisionV1) {
	tb.Helper()
	ids := p.file(tb, seq, n)
	seen, decs := d.until(tb, ids, within)
	return ids, seen, decs
}

// senders is how many webhooks a storm sends at once, round robin over the
// replicas' ingesters (an Alertmanager sends its groups' notifications
// concurrently).
const senders = 8

// file files n fresh incidents, senders at a time, round robin over the
// replicas' ingesters.
func (p *pipeline) file(tb testing.TB, seq *int, n int) map[string]bool {
	tb.Helper()
	bodies := make([][]byte, n)
	for i := range bodies {
		*seq++
		bodies[i] = alertBody(tb, p.inc.AlertJSON, *seq)
	}
	filed, errs := make([][]string, n), make([]error, n)
	var wg sync.WaitGroup
	for s := range senders {
		wg.Go(func() {
			for i := s; i < n; i += senders {
				filed[i], errs[i] = p.send(p.ingestURLs[i%len(p.ingestURLs)], bodies[i])
			}
		})
	}
	wg.Wait()
	require.NoError(tb, errors.Join(errs...))
	ids := map[string]bool{}
	for _, f := range filed {
		require.Len(tb, f, 1)
		ids[f[0]] = true
	}
	require.Len(tb, ids, n, "every alert opened its own incident")
	return ids
}

// stormed is what a timed storm came to: its incidents, each one's first
// decision, how long filing them took and the drain time, from the first
// webhook to the last incident's first decision.
type stormed struct {
	ids          map[string]bool
	decs         []contracts.DecisionV1
	filed, drain time.Duration
}

// timedStorm files n fresh incidents as storm does and, once half of them
// have their decision, calls mid with those decisions while the others are
// still in flight (the drain time ends when the last decision arrived,
// whether mid still waits then or not).
func (p *pipeline) timedStorm(tb testing.TB, d *decided, seq *int, n int, within time.Duration, mid func([]contracts.DecisionV1)) stormed {
	tb.Helper()
	deadline := time.NewTimer(within)
	defer deadline.Stop()
	start := time.Now()
	ids := p.file(tb, seq, n)
	filed := time.Since(start)
	t := &tally{seen: map[string]int{}}
	if mid != nil {
		d.wait(tb, ids, t, n/2, deadline.C)
		mid(slices.Clone(t.decs))
	}
	d.wait(tb, ids, t, n, deadline.C)
	return stormed{ids: ids, decs: t.decs, filed: filed, drain: t.last.Sub(start)}
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
// (AGENTK_BENCH_STORM, default 200; at least 8: the deployers' takeover
// takes four decisions of its first half).
func stormSize(tb testing.TB) int {
	return benchInt(tb, "AGENTK_BENCH_STORM", 200, 8)
}

// scaleOutParallel is the investigations each investigator replica of
// BenchmarkScaleOut runs at once, in both runs alike
// (AGENTK_BENCH_SCALEOUT_PARALLEL, default 8; AGENTK_INVESTIGATIONS_PARALLEL
// defaults to 2).
func scaleOutParallel(tb testing.TB) int {
	return benchInt(tb, "AGENTK_BENCH_SCALEOUT_PARALLEL", 8, 1)
}

// benchInt is the integer setting name, def when unset; it fails below least.
func benchInt(tb testing.TB, name string, def, least int) int {
	tb.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	require.NoError(tb, err, name)
	require.GreaterOrEqual(tb, n, least, name)
	return n
}

// leader waits until exactly one running deployer reports the mode leader
// and returns it.
func (p *pipeline) leader(tb testing.TB, within time.Duration) *deployerReplica {
	tb.Helper()
	deadline := time.NewTimer(within)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		var leaders []*deployerReplica
		var modes []string
		for _, d := range p.deployers {
			if !d.stopped {
				mode := d.mode()
				modes = append(modes, mode)
				if mode == deployer.ModeLeader {
					leaders = append(leaders, d)
				}
			}
		}
		require.LessOrEqual(tb, len(leaders), 1, "deployers leading at once: %v", modes)
		if len(leaders) == 1 {
			return leaders[0]
		}
		select {
		case <-deadline.C:
			tb.Fatalf("no deployer leads after %s: %v", within, modes)
		case <-tick.C:
		}
	}
}

// takeOver stops the deployer that holds the lease, as stopping its process
// would, and returns how long until a standby reports the mode leader. It
// fails unless, until the stop, no standby logged an action.
func (p *pipeline) takeOver(tb testing.TB) time.Duration {
	tb.Helper()
	old := p.leader(tb, 30*time.Second)
	for i, d := range p.deployers {
		if d != old && !d.stopped {
			require.Zero(tb, d.actions.Load(), "deployer %d stands by and answered nothing", i)
		}
	}
	start := time.Now()
	_ = old.running.Stop() // its services' errors on the way down are not the point
	old.stopped = true
	p.leader(tb, time.Minute)
	return time.Since(start)
}

// requireTakenOver fails unless one deployer still runs and leads, and the
// deployers logged n actions in all: each of the n approvals answered once,
// by whichever held the lease.
func (p *pipeline) requireTakenOver(tb testing.TB, n int) {
	tb.Helper()
	var running, logged int64
	for _, d := range p.deployers {
		logged += d.actions.Load()
		if !d.stopped {
			running++
			require.Equal(tb, deployer.ModeLeader, d.mode(), "the deployer left leads")
		}
	}
	require.EqualValues(tb, 1, running, "deployers still running")
	require.EqualValues(tb, n, logged, "actions the deployers logged")
}

// approveAcrossTakeover is the deployers' part of a storm: two allowed
// decisions approved (on two bridges), the lease holder stopped and the
// standby taking over, two more approved. It returns the approved decisions
// and how long the takeover took.
func (p *pipeline) approveAcrossTakeover(tb testing.TB, decs []contracts.DecisionV1) ([]contracts.DecisionV1, time.Duration) {
	tb.Helper()
	approved := decs[:4]
	p.approve(tb, approved[:2], 0)
	took := p.takeOver(tb)
	p.approve(tb, approved[2:], 1)
	return approved, took
}

// TestScaleOutStandbyTakesOver runs three replicas of every stateless
// service and two deployers, and in the middle of a storm approves two
// decisions, stops the deployer holding the lease and approves two more:
// the standby takes over, every incident still ends with exactly one stored
// decision, every approval with exactly one stored action, the service is
// acted on once and the deployers logged one answer per approval.
func TestScaleOutStandbyTakesOver(t *testing.T) {
	inc := loadIncident(t, pipelineIncident)
	p := startReplicas(t, inc, scripted.Oracle, latencies{}, 3)
	d, acts := p.watchDecisions(t), p.watchActions(t)
	seq := 0
	var approved []contracts.DecisionV1
	s := p.timedStorm(t, d, &seq, 16, 2*time.Minute, func(decs []contracts.DecisionV1) {
		approved, _ = p.approveAcrossTakeover(t, decs)
	})
	p.requireOneDecisionEach(t, s.ids)
	p.requireActedOnce(t, acts, approved)
	p.requireTakenOver(t, len(approved))
}

// BenchmarkScaleOut measures a storm of incidents (AGENTK_BENCH_STORM,
// default 200) through one replica of every stateless service and then
// through three, each over its own three-node JetStream cluster of embedded
// servers in this process (streams and buckets in three replicas;
// AGENTK_BENCH_CLUSTER=0: one embedded server instead), with latencies
// injected (SigNoz 80 ms a query, model 1.5 s a turn) and every
// investigator replica running AGENTK_BENCH_SCALEOUT_PARALLEL (default 8)
// investigations at once in both runs: the drain time from the first
// webhook (8 senders, round robin over the ingesters) to the last
// incident's decision. Two deployers run in both: once
// half the incidents have their decision, two are approved, the lease
// holder is stopped, the standby takes over and two more are approved.
// Every incident must end with exactly one stored decision, every approval
// with one stored action, the service acted on once. replicas_3 reports its
// speed-up over replicas_1 of the same run; cpu-ms is the process's CPU per
// incident, cpu-cores its CPU over the drain time (all of it: servers,
// fakes and services) and cpu-waiting how many of its threads were, on
// average, ready to run but waiting for a CPU: well under one, the CPU did
// not bound the drain.
//
//	go test -run '^$' -bench ScaleOut -benchtime 1x -timeout 60m ./e2e/bench
func BenchmarkScaleOut(b *testing.B) {
	inc := loadIncident(b, pipelineIncident)
	n, par := stormSize(b), scaleOutParallel(b)
	var one time.Duration
	for _, replicas := range []int{1, 3} {
		b.Run(fmt.Sprintf("replicas_%d", replicas), func(b *testing.B) {
			drain := scaleOut(b, inc, n, par, replicas)
			if replicas == 1 {
				one = drain
			} else if one > 0 {
				b.ReportMetric(one.Seconds()/drain.Seconds(), "x-faster-than-1")
			}
		})
	}
}

// scaleOut is one half of BenchmarkScaleOut: replicas of every stateless
// service, par investigations at once in each, a storm of n; it returns the
// drain time of the last storm.
func scaleOut(b *testing.B, inc *incident.Incident, n, par, replicas int) time.Duration {
	f, nodes := cluster3(b), 3
	if os.Getenv("AGENTK_BENCH_CLUSTER") == "0" {
		f, nodes = embedded(b), 1
	}
	lat := latencies{query: benchQueryLatency, turn: benchTurnLatency}
	p := startSet(b, f, inc, scripted.Oracle, lat, replicaSet{stateless: replicas, deployers: 2,
		env: map[string]string{"AGENTK_INVESTIGATIONS_PARALLEL": strconv.Itoa(par)}})
	d, acts := p.watchDecisions(b), p.watchActions(b)
	seq := 0
	p.storm(b, d, &seq, 1, time.Minute) // warms every replica's connections up
	var drain, drains, filed, took, cpu, wait time.Duration
	var approved []contracts.DecisionV1
	b.ResetTimer()
	for i := range b.N {
		var mid func([]contracts.DecisionV1)
		if i == 0 { // one takeover: the stopped deployer stays down
			mid = func(decs []contracts.DecisionV1) { approved, took = p.approveAcrossTakeover(b, decs) }
		}
		c, w := processCPU(b), runQueueWait()
		s := p.timedStorm(b, d, &seq, n, time.Duration(n)*10*time.Second, mid)
		cpu += processCPU(b) - c
		wait += max(0, runQueueWait()-w)
		drain, filed = s.drain, s.filed
		drains += drain
		b.StopTimer()
		p.requireOneDecisionEach(b, s.ids)
		b.StartTimer()
	}
	b.StopTimer()
	p.requireActedOnce(b, acts, approved)
	p.requireTakenOver(b, len(approved))
	b.ReportMetric(drain.Seconds(), "drain-s")
	b.ReportMetric(float64(n)/drain.Seconds(), "incidents/s")
	b.ReportMetric(float64(nodes), "nats-nodes")
	b.ReportMetric(float64(par), "parallel")
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(n*b.N), "cpu-ms")
	b.ReportMetric(cpu.Seconds()/drains.Seconds(), "cpu-cores")
	b.ReportMetric(wait.Seconds()/drains.Seconds(), "cpu-waiting")
	b.ReportMetric(took.Seconds(), "takeover-s")
	b.ReportMetric(filed.Seconds(), "filed-s")
	return drain
}

// runQueueWait is how long this process's threads have waited for a CPU
// while ready to run (the second field of /proc/self/task/*/schedstat), or
// 0 where there is no such file. A thread that has exited no longer counts.
func runQueueWait() time.Duration {
	paths, _ := filepath.Glob("/proc/self/task/*/schedstat")
	var sum int64
	for _, path := range paths {
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		if f := strings.Fields(string(b)); len(f) >= 2 {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			sum += n
		}
	}
	return time.Duration(sum)
}
