package facts_test

import (
	"testing"
	"time"

	"agentk/contracts"
	"agentk/services/sandbox/internal/facts"

	"github.com/stretchr/testify/require"
)

// callMinutes is 60 minutes of a peer's client spans from t0: calls a
// minute, errs of them failing from failFrom on and baseErrs before.
func callMinutes(calls, errs, baseErrs float64, failFrom int) []facts.Minute {
	ms := make([]facts.Minute, 60)
	for i := range ms {
		ms[i] = facts.Minute{At: at(i), Requests: calls, Errors: baseErrs, P95Ms: 40}
		if i >= failFrom {
			ms[i].Errors = errs
		}
	}
	return ms
}

// TestCallsSinceRelease: the calls to a failing dependency in the whole
// minutes from the running version's first served minute to the peer's
// failure onset (the first minute failing beyond the usual rate), each with
// the other versions' entry spans, and its calls before the release
// (lm7-trap-expired-token-search-api: the partner called cleanly by 8.4.2
// before its token expired).
func TestCallsSinceRelease(t *testing.T) {
	t.Parallel()
	onset := at(40)
	on := facts.Onset{At: &onset, Signal: "error_rate", BaselineFrom: t0}
	rows := func(from, to int, calls, errs float64) []contracts.PeerCallMinute {
		var out []contracts.PeerCallMinute
		for i := from; i < to; i++ {
			out = append(out, contracts.PeerCallMinute{At: at(i), Calls: calls, Errors: errs})
		}
		return out
	}
	oneError := callMinutes(12, 12, 0, 40)
	oneError[38].Errors = 1
	withOld := rows(37, 40, 12, 0)
	withOld[0].OtherVersions = 4
	for _, tt := range []struct {
		name  string
		ms    []facts.Minute
		since time.Time
		want  []contracts.CallsSinceRelease
	}{
		{"released three minutes before the onset, old pods in its first minute", callMinutes(12, 12, 0, 40), at(37),
			[]contracts.CallsSinceRelease{{Peer: "partner", Onset: at(40), BaselineCalls: 37 * 12, Minutes: withOld}}},
		{"the peer failing two minutes before the service", callMinutes(12, 12, 1, 38), at(35),
			[]contracts.CallsSinceRelease{{Peer: "partner", Onset: at(38), BaselineCalls: 35 * 12, BaselineErrors: 35, Minutes: func() []contracts.PeerCallMinute {
				r := rows(35, 38, 12, 1)
				r[1].OtherVersions, r[2].OtherVersions = 10, 4
				return r
			}()}}},
		{"one failed call is the usual rate", oneError, at(37),
			[]contracts.CallsSinceRelease{{Peer: "partner", Onset: at(40), BaselineCalls: 37 * 12, Minutes: func() []contracts.PeerCallMinute {
				r := rows(37, 40, 12, 0)
				r[0].OtherVersions, r[1].Errors = 4, 1
				return r
			}()}}},
		{"released at the onset", callMinutes(12, 12, 0, 40), at(40), nil},
		{"no release measured", callMinutes(12, 12, 0, 40), time.Time{}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			byPeer := map[string][]facts.Minute{"partner": tt.ms, "cache": callMinutes(30, 0, 0, 60)}
			others := map[int64]float64{at(36).UnixMilli(): 10, at(37).UnixMilli(): 4}
			require.Equal(t, tt.want, facts.CallsSinceRelease(byPeer, []string{"partner"}, at(59), on, tt.since, others))
		})
	}
}
