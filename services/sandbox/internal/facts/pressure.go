package facts

import (
	"math"
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

// ResourcePressure splits the per-minute counts of the pressure logs (resp:
// aggregation 0, one group) at onset: since it, up to the end of the last
// minute of minutes (the service's own spans) with a request (a window that
// reaches past the recording is not counted as quiet), and in the baseline
// from baselineFrom. It returns ErrBadResponse when resp is not a time
// series.
func ResourcePressure(resp signoz.Response, onset, baselineFrom time.Time, minutes []Minute) (*contracts.ResourcePressure, error) {
	end := onset.Add(time.Minute)
	for _, m := range minutes {
		if m.Requests > 0 && !m.At.Before(end) {
			end = m.At.Add(time.Minute)
		}
	}
	p := &contracts.ResourcePressure{
		Minutes:         max(1, int(math.Ceil(end.Sub(onset).Minutes()))),
		BaselineMinutes: max(0, int(onset.Sub(baselineFrom).Minutes())),
	}
	err := Samples(resp, All, func(_ string, agg int, ts int64, n float64) {
		at := time.UnixMilli(ts)
		switch {
		case agg != 0, at.Before(baselineFrom), !at.Before(end):
		case at.Before(onset):
			p.BaselineLogs += int64(math.Round(n))
		default:
			p.Logs += int64(math.Round(n))
		}
	})
	return p, err
}
