package facts

import (
	"time"

	"agentk/contracts"
)

// CallsSinceRelease describes, for each peer of failing (the service's
// FailingDependencies), the service's calls to it in every whole minute from
// the running version's first served minute (since, ReleaseErrors.FirstSeen)
// to the peer's failure onset, each minute with others' entry spans that
// minute (the other versions', by Unix milliseconds). The onset is the first
// minute from since on in which more calls failed than the peer's usual
// rate allows (UsualFailures), or its own error onset (errorOnset) when
// earlier, or the service's when neither is found. The baseline counts are
// the peer's calls and failures from on's baseline start to since. A peer
// with no minute between is left out.
//
// The gate reads them against a configuration release
// (lm7-trap-expired-token-search-api: 8.4.2 alone called its partner 10
// times without a failure in the minute before the partner's token expired
// and every call answered 401; persona:quality's config_regression was
// rolled back).
func CallsSinceRelease(byPeer map[string][]Minute, failing []string, alertAt time.Time, on Onset, since time.Time, others map[int64]float64) []contracts.CallsSinceRelease {
	if on.At == nil || since.IsZero() {
		return nil
	}
	var out []contracts.CallsSinceRelease
	for _, p := range failing {
		ms := byPeer[p]
		c := contracts.CallsSinceRelease{Peer: p}
		for _, m := range ms {
			if !m.At.Before(on.BaselineFrom) && m.At.Before(since) {
				c.BaselineCalls += m.Requests
				c.BaselineErrors += m.Errors
			}
		}
		c.Onset = failureStart(ms, alertAt, on, since, c.BaselineCalls, c.BaselineErrors)
		for _, m := range ms {
			if !m.At.Before(since) && !m.At.Add(time.Minute).After(c.Onset) && m.Requests > 0 {
				c.Minutes = append(c.Minutes, contracts.PeerCallMinute{At: m.At, Calls: m.Requests, Errors: m.Errors, OtherVersions: others[m.At.UnixMilli()]})
			}
		}
		if len(c.Minutes) > 0 {
			out = append(out, c)
		}
	}
	return out
}

// failureStart is the first minute of ms at or after since whose failures
// exceed UsualFailures, else the peer's own error onset, else the
// service's (on).
func failureStart(ms []Minute, alertAt time.Time, on Onset, since time.Time, baseCalls, baseErrs float64) time.Time {
	var first time.Time
	for _, m := range ms {
		if !m.At.Before(since) && m.Errors > UsualFailures(m.Requests, baseCalls, baseErrs) && (first.IsZero() || m.At.Before(first)) {
			first = m.At
		}
	}
	if !first.IsZero() {
		return first
	}
	if o := errorOnset(ms, alertAt); o.At != nil {
		return *o.At
	}
	return *on.At
}

// UsualFailures is how many of calls may fail at a peer's usual error rate
// (baseErrs of baseCalls): twice what that rate predicts, plus one.
func UsualFailures(calls, baseCalls, baseErrs float64) float64 {
	rate := 0.0
	if baseCalls > 0 {
		rate = baseErrs / baseCalls
	}
	return 2*rate*calls + 1
}
