package fakesignoz

import (
	"fmt"
	"time"
)

// relativeSlack is how close to the wall clock a window's end must be for the
// fake to read the window as relative ("the last hour"): clients compute
// such windows from their own clock a moment before the request arrives.
const relativeSlack = 2 * time.Minute

// window maps a request window (epoch ms) onto the replay clock. A window
// ending within relativeSlack of the wall clock's now, while the replay clock
// is elsewhere, is moved so that it ends at the replay clock's now, keeping
// its length; the returned note says so (empty when nothing moved).
func (s *Server) window(startMs, endMs uint64) (uint64, uint64, string) {
	if s.opts.ReplayNow == nil {
		return startMs, endMs, ""
	}
	wall, replay := s.opts.Now(), s.opts.ReplayNow()
	offset := replay.Sub(wall)
	if offset.Abs() <= relativeSlack {
		return startMs, endMs, ""
	}
	end := time.UnixMilli(int64(endMs))
	if end.Sub(wall).Abs() > relativeSlack {
		return startMs, endMs, ""
	}
	shift := offset.Milliseconds()
	ns, ne := int64(startMs)+shift, int64(endMs)+shift
	if ns < 0 || ne <= 0 {
		return startMs, endMs, ""
	}
	return uint64(ns), uint64(ne), fmt.Sprintf(
		"the time range ends at the wall clock's now; fakesignoz measured it from the replay clock instead: %s to %s",
		time.UnixMilli(ns).UTC().Format(time.RFC3339), time.UnixMilli(ne).UTC().Format(time.RFC3339))
}

// windowNs is window for epoch-nanosecond bounds.
func (s *Server) windowNs(start, end time.Time) (time.Time, time.Time, string) {
	a, b, note := s.window(uint64(start.UnixMilli()), uint64(end.UnixMilli()))
	if note == "" {
		return start, end, ""
	}
	return time.UnixMilli(int64(a)), time.UnixMilli(int64(b)), note
}

// span returns the first and last timestamp of the incident's telemetry.
func (st *store) span() (first, last time.Time, ok bool) {
	for _, recs := range [][]record{st.spans, st.logs} {
		for _, r := range recs {
			if !ok || r.ts.Before(first) {
				first = r.ts
			}
			if !ok || r.ts.After(last) {
				last = r.ts
			}
			ok = true
		}
	}
	return first, last, ok
}

// emptyWindowHint explains a window that holds none of the incident's
// telemetry, so that a client gets a reason instead of a silent empty answer.
func (st *store) emptyWindowHint(startMs, endMs uint64) string {
	first, last, ok := st.span()
	if !ok {
		return ""
	}
	start, end := time.UnixMilli(int64(startMs)), time.UnixMilli(int64(endMs))
	if !end.Before(first) && !start.After(last) {
		return ""
	}
	return fmt.Sprintf("the time range %s to %s holds none of this incident's telemetry, which spans %s to %s",
		start.UTC().Format(time.RFC3339), end.UTC().Format(time.RFC3339),
		first.UTC().Format(time.RFC3339), last.UTC().Format(time.RFC3339))
}

func (r *queryRangeResponse) addWarning(msg string) {
	if msg == "" {
		return
	}
	if r.Warning == nil {
		r.Warning = &warningData{Message: "Encountered warnings"}
	}
	r.Warning.Warnings = append(r.Warning.Warnings, warningAdditional{Message: msg})
}
