package tools

import (
	"time"

	"agentk/contracts"
)

// releaseStart is the first minute the running version served an entry
// span (ReleaseErrors.FirstSeen), zero when the release was not measured or
// the recording holds nothing before it (no release to speak of).
func releaseStart(r *contracts.ReleaseErrors) time.Time {
	if r == nil || r.HistoryMinutes == 0 {
		return time.Time{}
	}
	return r.FirstSeen
}
