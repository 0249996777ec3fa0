package main

import (
	"fmt"
	"math"
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
// injected (BenchmarkScaleOut; make bench runs it only with
// AGENTK_BENCH_SCALEOUT=1: 200 incidents take about 10 minutes).
func scaleOutRow(get func(name, unit string) (float64, bool), num func(float64) string) Row {
	const one, three = "BenchmarkScaleOut/replicas_1", "BenchmarkScaleOut/replicas_3"
	d1, ok1 := get(one, "drain-s")
	d3, ok3 := get(three, "drain-s")
	if !ok1 || !ok3 {
		return missing("Scale-out: a storm of incidents through 3 replicas", "BenchmarkScaleOut did not run (AGENTK_BENCH_SCALEOUT=1 runs it)")
	}
	r1, _ := get(one, "incidents/s")
	r3, _ := get(three, "incidents/s")
	n := math.Round(r1 * d1)
	fabric := "one embedded NATS server"
	if nodes, _ := get(three, "nats-nodes"); nodes == 3 {
		fabric = "a three-node JetStream cluster of embedded servers in one process, streams in 3 replicas"
	}
	return Row{Figure: fmt.Sprintf("Scale-out: %s incidents at once, latencies injected (SigNoz 80 ms a query, model 1.5 s a turn), 3 replicas of ingester, sandbox, investigator, reviewer, gate and bridge, 2 deployers, over %s; exactly one stored decision per incident", num(n), fabric),
		Measured: fmt.Sprintf("drained in %s s (%s incidents/s)", num(d3), num(r3)),
		Baseline: fmt.Sprintf("the same storm through 1 replica of each: %s s (%s incidents/s)", num(d1), num(r1)),
		Ratio:    d1 / d3, RatioOf: "speed-up, drain time 1 replica ÷ 3 replicas"}
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
