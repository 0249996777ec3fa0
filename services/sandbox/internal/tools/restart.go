package tools

import (
	"fmt"
	"time"

	"agentk/contracts"
	"agentk/services/sandbox/internal/compact"
	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"
)

// runningRestarts measures the restarts of the release running since the
// onset (facts.RunningRestarts); none when no version was measured.
func runningRestarts(versions, procs signoz.Response, rel *contracts.ReleaseErrors, onset time.Time) ([]contracts.ProcessRestart, error) {
	rs, err := facts.RunningRestarts(versions, procs, rel, onset)
	return rs, badResponse(err)
}

// restartLine says what a restart measured, for the model and the human.
func restartLine(r contracts.ProcessRestart) string {
	return fmt.Sprintf("process restarted since the onset (process.pid, same service.version %s): pid %s last served at %s, pid %s first at %s, %d minutes without an entry span between",
		compact.Quote(r.Version), compact.Quote(r.OldPID), r.LastSeen.Format(time.RFC3339), compact.Quote(r.NewPID), r.At.Format(time.RFC3339), r.GapMinutes)
}
