package tools

import (
	"fmt"
	"math"
	"strings"
	"time"

	"agentk/contracts"
	"agentk/services/sandbox/internal/signoz"
)

// PressureVocabulary is what a log record's body says when a process is
// short of a resource, whatever runtime or author wrote it: memory (heap,
// out of memory, an OOM kill, usage or pressure against a limit), garbage
// collection (GC pauses, a full collection) and CPU (throttling, saturation).
// It names the resources, as OpenTelemetry's runtime semantic conventions do
// (process.runtime.*, jvm.gc.*, jvm.memory.*, go.memory.*, process.cpu.*,
// container.cpu.*), not any one emitter's sentence; "invalid memory
// address", a panic of a release, does not match. RE2 syntax, read the same
// way by SigNoz (ClickHouse's match) and by Go, with no backslash so that
// the filter's quoting cannot change it.
const PressureVocabulary = `(?i)(out of memory|outofmemory|memoryerror|oom.?kill|heap|garbage.collect|gc pause|pause (full|young)|(^|[^a-z])gc([^a-z]|$)|memory (usage|pressure|limit|exhausted)|memory (is )?(above|over|at|exceed)|cpu[^.]{0,40}throttl|throttl[^.]{0,40}cpu|cpu (usage|saturat|pressure))`

// pressureQuery is the per-minute count of the service's log records at
// WARN or above (severity_text, every spelling) whose body names a resource
// under pressure, over the onset window.
func pressureQuery(svc string, ow Window) Query {
	var sev []string
	for _, s := range severities["WARN"] {
		sev = append(sev, Quote(s))
	}
	f := and(svc, "severity_text IN ("+strings.Join(sev, ", ")+")", "body REGEXP "+Quote(PressureVocabulary))
	return Query{Name: qPressure, Request: signoz.NewRequest(signoz.RequestTimeSeries, ow.From.UnixMilli(), ow.To.UnixMilli(), signoz.BuilderQuery{Name: "A", Signal: signoz.SignalLogs,
		StepInterval: 60, Filter: signoz.Filter{Expression: f}, Aggregations: []signoz.Aggregation{{Expression: "count()"}}, Limit: 1})}

}

// resourcePressure splits the pressure logs' per-minute counts at the onset:
// since it, up to the end of the last minute with a span of the service in
// minutes (a window that reaches past the recording is not counted as
// quiet), and in its baseline (from on.BaselineFrom).
func resourcePressure(resp signoz.Response, on Onset, minutes []Minute) (*contracts.ResourcePressure, error) {
	onset := *on.At
	end := onset.Add(time.Minute)
	for _, m := range minutes {
		if m.Requests > 0 && !m.At.Before(end) {
			end = m.At.Add(time.Minute)
		}
	}
	p := &contracts.ResourcePressure{
		Minutes:         max(1, int(math.Ceil(end.Sub(onset).Minutes()))),
		BaselineMinutes: max(0, int(onset.Sub(on.BaselineFrom).Minutes())),
	}
	err := samples(resp, func(signoz.Series) string { return "all" }, func(_ string, agg int, ts int64, n float64) {
		at := time.UnixMilli(ts)
		switch {
		case agg != 0, at.Before(on.BaselineFrom), !at.Before(end):
		case at.Before(onset):
			p.BaselineLogs += int64(math.Round(n))
		default:
			p.Logs += int64(math.Round(n))
		}
	})
	return p, err
}

// pressureLine says what the pressure logs showed, for the model and the human.
func pressureLine(p *contracts.ResourcePressure) string {
	return fmt.Sprintf("logs at WARN or above naming memory, heap, GC or CPU pressure: %d in the %d min since the onset, %d in the %d min of baseline",
		p.Logs, p.Minutes, p.BaselineLogs, p.BaselineMinutes)
}
