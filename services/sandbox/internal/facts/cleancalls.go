package facts

import (
	"time"

	"agentk/contracts"
)

// CallsSinceRelease describes, for each peer of failing (the service's
// FailingDependencies), the service's calls to it in every whole minute from
// the running version's first served minute (since, ReleaseErrors.FirstSeen)
// to the peer's failure onset: the earlier of its own error onset
// (errorOnset) and the service's on, each minute ending at or before it.
// The baseline counts are the peer's calls and failures from on's baseline
// start to since. A peer with no minute between is left out.
//
// The gate reads them against a configuration release
// (lm7-trap-expired-token-search-api: 8.4.2 called its partner 23 times
// without a failure in the two minutes before the partner's token expired
// and every call answered 401; persona:quality's config_regression was
// rolled back).
func CallsSinceRelease(byPeer map[string][]Minute, failing []string, alertAt time.Time, on Onset, since time.Time) []contracts.CallsSinceRelease {
	if on.At == nil || since.IsZero() {
		return nil
	}
	var out []contracts.CallsSinceRelease
	for _, p := range failing {
		ms := byPeer[p]
		end := *on.At
		if o := errorOnset(ms, alertAt); o.At != nil && o.At.Before(end) {
			end = *o.At
		}
		c := contracts.CallsSinceRelease{Peer: p, Onset: end}
		for _, m := range ms {
			switch {
			case !m.At.Before(on.BaselineFrom) && m.At.Before(since):
				c.BaselineCalls += m.Requests
				c.BaselineErrors += m.Errors
			case !m.At.Before(since) && !m.At.Add(time.Minute).After(end) && m.Requests > 0:
				c.Minutes = append(c.Minutes, contracts.PeerCallMinute{At: m.At, Calls: m.Requests, Errors: m.Errors})
			}
		}
		if len(c.Minutes) > 0 {
			out = append(out, c)
		}
	}
	return out
}
