package facts

import (
	"time"

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
// out: they rise without any pressure. The runtime query asks for the mean of
// each, in this order: aggregation i is RuntimeAttributes[i].
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

// RuntimeSaturation reads the per-minute means of the runtime attributes
// (aggregation i of resp is RuntimeAttributes[i]) and returns the one whose
// median since onset rose most over its median in the baseline
// [baselineFrom, onset), among those with enough minutes on both sides; nil
// when none has. Medians, so that one spike in the baseline or one outlier
// minute since the onset moves nothing. It returns ErrBadResponse when resp
// is not a time series.
func RuntimeSaturation(resp signoz.Response, onset, baselineFrom time.Time) (*contracts.RuntimeLevel, error) {
	on := onset.UnixMilli()
	from := baselineFrom.UnixMilli()
	before := map[int][]float64{}
	since := map[int][]float64{}
	err := Samples(resp, All, func(_ string, agg int, ts int64, v float64) {
		switch {
		case agg < 0 || agg >= len(RuntimeAttributes), ts < from:
		case ts < on:
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
		l := &contracts.RuntimeLevel{Attribute: k, Baseline: Round(Median(before[i])), Since: Round(Median(since[i])),
			Minutes: len(since[i]), BaselineMinutes: len(before[i])}
		if best == nil || l.Rise() > best.Rise() {
			best = l
		}
	}
	return best, nil
}
