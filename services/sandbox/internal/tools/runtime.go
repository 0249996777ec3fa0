package tools

import (
	"fmt"

	"agentk/contracts"
	"agentk/services/sandbox/internal/signoz"
)

// RuntimeAttributes are the numeric attributes of OpenTelemetry's runtime
// and process semantic conventions that measure how much of a resource a
// process is using, in their current names and the process.runtime.* names
// that preceded them: CPU utilization, memory in use, garbage-collection
// time. Each is read from the service's spans, as a span or a resource
// attribute (a bare key: SigNoz resolves either). Counters that only ever
// grow (process.cpu.time, jvm.gc.count, allocated bytes) and limits are left
// out: they rise without any pressure.
var RuntimeAttributes = []string{
	"process.cpu.utilization", "process.memory.usage",
	"jvm.cpu.recent_utilization", "jvm.memory.used", "jvm.gc.duration",
	"go.memory.used", "v8js.memory.heap.used", "nodejs.eventloop.delay.p99",
	"dotnet.gc.last_collection.heap.size", "dotnet.gc.pause.time",
	"container.cpu.usage", "container.cpu.utilization", "container.memory.usage",
	"process.runtime.jvm.cpu.utilization", "process.runtime.jvm.memory.usage", "process.runtime.jvm.gc.duration",
	"process.runtime.go.mem.heap_alloc", "process.runtime.go.gc.pause_ns",
	"process.runtime.cpython.memory", "process.runtime.cpython.cpu.utilization",
	"process.runtime.dotnet.gc.heap.size",
}

// Runtime-level minimums: an attribute is compared only where it has a
// value in at least MinRuntimeMinutes minutes since the onset and
// MinRuntimeBaselineMinutes minutes of the baseline.
const (
	MinRuntimeMinutes         = 3
	MinRuntimeBaselineMinutes = 5
)

// runtimeQuery is the per-minute mean of every RuntimeAttributes key over
// the service's spans (deployment markers aside), over the onset window. It
// is optional (Query.Optional).
func runtimeQuery(svc string, ow Window) Query {
	aggs := make([]signoz.Aggregation, 0, len(RuntimeAttributes))
	for _, k := range RuntimeAttributes {
		aggs = append(aggs, signoz.Aggregation{Expression: "avg(" + k + ")"})
	}
	return Query{Name: qRuntime, Request: signoz.NewRequest(signoz.RequestTimeSeries, ow.From.UnixMilli(), ow.To.UnixMilli(), signoz.BuilderQuery{Name: "A", Signal: signoz.SignalTraces,
		StepInterval: 60, Filter: signoz.Filter{Expression: and(serviceFilter(svc), notMarker)}, Aggregations: aggs, Limit: 1}),
		// SigNoz resolves a bare key through the keys it has seen, and
		// refuses the query ("field `jvm.gc.duration` not found") when one
		// of these was never sent by any service: then the overview goes on
		// without runtime attributes and says so.
		Optional: true}
}

// runtimeSaturation reads the per-minute means of the runtime attributes
// and returns the one whose median since the onset rose most over its
// median in the baseline [on.BaselineFrom, onset), among those with enough
// minutes on both sides; nil when none has. Medians, so that one spike in
// the baseline or one outlier minute since the onset moves nothing.
func runtimeSaturation(resp signoz.Response, on Onset) (*contracts.RuntimeLevel, error) {
	onset := on.At.UnixMilli()
	from := on.BaselineFrom.UnixMilli()
	before := map[int][]float64{}
	since := map[int][]float64{}
	err := samples(resp, func(signoz.Series) string { return "all" }, func(_ string, agg int, ts int64, v float64) {
		switch {
		case agg < 0 || agg >= len(RuntimeAttributes), ts < from:
		case ts < onset:
			before[agg] = append(before[agg], v)
		default:
			since[agg] = append(since[agg], v)
		}
	})
	if err != nil {
		return nil, err
	}
	var best *contracts.RuntimeLevel
	for i, k := range RuntimeAttributes {
		if len(since[i]) < MinRuntimeMinutes || len(before[i]) < MinRuntimeBaselineMinutes {
			continue
		}
		l := &contracts.RuntimeLevel{Attribute: k, Baseline: round(median(before[i])), Since: round(median(since[i])),
			Minutes: len(since[i]), BaselineMinutes: len(before[i])}
		if best == nil || l.Rise() > best.Rise() {
			best = l
		}
	}
	return best, nil
}

// runtimeLine says what the runtime attributes showed, for the model and the human.
func runtimeLine(l *contracts.RuntimeLevel) string {
	return fmt.Sprintf("runtime attribute %s on the service's spans (median of per-minute means): %s in the %d min since the onset, %s in the %d min of baseline (%sx)",
		l.Attribute, fmtF(l.Since), l.Minutes, fmtF(l.Baseline), l.BaselineMinutes, fmtF(l.Rise()))
}
