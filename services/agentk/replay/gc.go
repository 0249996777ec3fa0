package replay

import (
	"os"
	"runtime/debug"
)

// EvalGCPercent is the garbage collector's target `agentk eval` runs with
// when GOGC is not set: an eval allocates about 4 GB over a corpus of 33
// incidents while it holds a few hundred MB (the corpus and the telemetry
// of the incidents being replayed), and marking that heap at Go's default
// of 100 was a tenth of its CPU. At 300 the eval of e2e/incidents took
// about 10% less CPU and peaked at 0.69 GB instead of 0.47 GB (main before
// issue 36's second pass: 1.1 GB), most of it while the whole corpus is
// loaded. Since `agentk eval` reads each incident's telemetry only for its
// replays (incident.LoadCorpusDeferred), the heap the collector paces is
// that of the incidents in flight, and the eval of e2e/incidents peaks at
// about 0.2 GB (docs/bench/notes.md).
const EvalGCPercent = 300

// TuneGC sets EvalGCPercent unless GOGC says otherwise, and returns what
// puts the previous setting back.
func TuneGC() (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(EvalGCPercent)
	return func() { debug.SetGCPercent(old) }
}
