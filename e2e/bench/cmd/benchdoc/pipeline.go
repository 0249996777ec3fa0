package main

import (
	"fmt"
	"math"
	"runtime"
)

// pipelineRows are the alert → decision figures: the pipeline beside the
// same bus traffic and SigNoz queries through do-nothing handlers, and the
// pipeline with realistic latencies beside its critical path.
func pipelineRows(get func(name, unit string) (float64, bool), num func(float64) string) []Row {
	var rows []Row
	if p50, ok := get("BenchmarkPipeline/real", "p50-ms"); ok {
		p99, _ := get("BenchmarkPipeline/real", "p99-ms")
		b50, _ := get("BenchmarkPipeline/bus", "p50-ms")
		b99, _ := get("BenchmarkPipeline/bus", "p99-ms")
		tc, _ := get("BenchmarkPipeline/real", "tool-calls")
		q, _ := get("BenchmarkPipeline/real", "queries")
		rows = append(rows, Row{Figure: "Pipeline: alert → signed decision, zero-latency scripted model (oracle)",
			Measured: fmt.Sprintf("p50 %s ms, p99 %s ms", num(p50), num(p99)) + cpuPerIncident(get, "BenchmarkPipeline/real", num),
			Baseline: fmt.Sprintf("the same bus traffic (%s tool calls) and the same %s SigNoz queries against the same fake, through do-nothing handlers: p50 %s ms, p99 %s ms", num(tc), num(q), num(b50), num(b99)) +
				cpuPerIncident(get, "BenchmarkPipeline/bus", num),
			Ratio: p50 / b50, RatioOf: "p50, pipeline ÷ bus and SigNoz alone"})
	} else {
		rows = append(rows, Row{Figure: "Pipeline overhead", Measured: "not run", Baseline: "not run", Note: "BenchmarkPipeline did not run"})
	}
	if p50, ok := get("BenchmarkPipelineLatency", "p50-ms"); ok {
		p99, _ := get("BenchmarkPipelineLatency", "p99-ms")
		crit, _ := get("BenchmarkPipelineLatency", "critical-path-ms")
		x, _ := get("BenchmarkPipelineLatency", "x-critical-path")
		rows = append(rows, Row{Figure: "Pipeline with latencies injected (SigNoz 80 ms a query, model 1.5 s a turn): alert → signed decision",
			Measured: fmt.Sprintf("p50 %s ms, p99 %s ms", num(p50), num(p99)),
			Baseline: fmt.Sprintf("critical path, the model turns and each tool call's dependent query stages end to end: %s ms", num(crit)),
			Ratio:    x, RatioOf: "p50 ÷ critical path"})
	} else {
		rows = append(rows, Row{Figure: "Pipeline with latencies injected", Measured: "not run", Baseline: "not run", Note: "BenchmarkPipelineLatency did not run"})
	}
	return rows
}

// scaleOutRow is the storm of incidents through three replicas of every
// stateless service beside the same storm through one, both with latencies
// injected, the same investigations at once in every investigator replica,
// two deployers and the lease holder stopped mid-storm (BenchmarkScaleOut).
func scaleOutRow(get func(name, unit string) (float64, bool), num func(float64) string) Row {
	const one, three = "BenchmarkScaleOut/replicas_1", "BenchmarkScaleOut/replicas_3"
	d1, ok1 := get(one, "drain-s")
	d3, ok3 := get(three, "drain-s")
	if !ok1 || !ok3 {
		return missing("Scale-out: a storm of incidents through 3 replicas", "BenchmarkScaleOut did not run (AGENTK_BENCH_SCALEOUT=0 skips it)")
	}
	r1, _ := get(one, "incidents/s")
	r3, _ := get(three, "incidents/s")
	n := math.Round(r1 * d1)
	par, _ := get(three, "parallel")
	fabric := "one embedded NATS server (AGENTK_BENCH_CLUSTER=0)"
	if nodes, _ := get(three, "nats-nodes"); nodes == 3 {
		fabric = "a three-node JetStream cluster of embedded servers in the benchmark's process, streams and buckets in 3 replicas"
	}
	t1, _ := get(one, "takeover-s")
	t3, _ := get(three, "takeover-s")
	return Row{Figure: fmt.Sprintf("Scale-out: %s incidents at once (8 concurrent senders over the ingesters), latencies injected (SigNoz 80 ms a query, model 1.5 s a turn), "+
		"3 replicas of ingester, sandbox, investigator, reviewer, gate and bridge, each investigator replica running %s investigations at once (in both runs), over %s; "+
		"2 deployers: once half the incidents are decided, 2 approvals, the lease holder stopped, the standby takes over, 2 more approvals; "+
		"exactly one stored decision per incident, one stored action per approval, the service acted on once", num(n), num(par), fabric),
		Measured: fmt.Sprintf("drained in %s s (%s incidents/s)", num(d3), num(r3)) + scaleOutCPU(get, three, num) + fmt.Sprintf(", takeover %s s", num(t3)),
		Baseline: fmt.Sprintf("the same storm through 1 replica of each: %s s (%s incidents/s)", num(d1), num(r1)) + scaleOutCPU(get, one, num) + fmt.Sprintf(", takeover %s s", num(t1)),
		Ratio:    d1 / d3, RatioOf: "speed-up, drain time 1 replica ÷ 3 replicas"}
}

// scaleOutCPU is ", CPU x ms an incident, y of n cores busy while it
// drained and z threads waiting for a core" from bench's cpu-ms, cpu-cores
// and cpu-waiting (the whole process: NATS servers, fakes and services), or
// "" when it has none: the threads waiting say whether the CPU bounded the
// drain (others' work on the machine included).
func scaleOutCPU(get func(name, unit string) (float64, bool), bench string, num func(float64) string) string {
	ms, ok1 := get(bench, "cpu-ms")
	cores, ok2 := get(bench, "cpu-cores")
	if !ok1 || !ok2 {
		return ""
	}
	out := fmt.Sprintf(", CPU %s ms an incident, %s of %d cores busy while it drained", num(ms), num(cores), runtime.NumCPU())
	if w, ok := get(bench, "cpu-waiting"); ok {
		out += fmt.Sprintf(" and %s threads on average ready but waiting for a core", num(w))
	}
	return out
}

// cpuPerIncident is ", CPU x ms an incident" from the cpu-ms metric of
// bench, or "" when it has none: on a machine that others load, the
// latencies stretch with the load and the CPU per incident much less.
func cpuPerIncident(get func(name, unit string) (float64, bool), bench string, num func(float64) string) string {
	if cpu, ok := get(bench, "cpu-ms"); ok {
		return fmt.Sprintf(", CPU %s ms an incident (the whole process)", num(cpu))
	}
	return ""
}
