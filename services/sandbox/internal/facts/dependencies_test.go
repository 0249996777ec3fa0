package facts_test

import (
	"testing"

	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"

	"github.com/stretchr/testify/require"
)

// peerMinutes is 60 minutes of a peer's client spans from t0: calls a
// minute (callsSince from minute 40), and errors a minute from failFrom on.
func peerMinutes(calls, callsSince, errs float64, failFrom int) []facts.Minute {
	var ms []facts.Minute
	for i := range 60 {
		m := facts.Minute{At: at(i), Requests: calls, P95Ms: 40 + float64(i%3)}
		if i >= 40 {
			m.Requests = callsSince
		}
		if i >= failFrom {
			m.Errors = errs
		}
		ms = append(ms, m)
	}
	return ms
}

// TestFailingDependencies: a peer whose client spans' errors left their
// baseline within CoRegressionWindow of the service's onset, called at its
// usual rate, is a failing dependency (a sparse one's a bucket of its
// series earlier too: mutant sandbox.dependency_bucket, world s52917-w029);
// one whose calls a retry storm multiplied, one failing ten minutes later,
// one only slower, one failing long before, and one never failing are not.
func TestFailingDependencies(t *testing.T) {
	t.Parallel()
	onset := at(40)
	on := facts.Onset{At: &onset, Signal: "error_rate", BaselineFrom: t0}
	slow := peerMinutes(20, 20, 0, 60)
	for i := 40; i < 60; i++ {
		slow[i].P95Ms = 900
	}
	for _, tt := range []struct {
		name string
		ms   []facts.Minute
		want []string
	}{
		{"failing at its usual rate", peerMinutes(20, 20, 8, 40), []string{"ledger"}},
		{"failing two minutes before the service", peerMinutes(20, 20, 8, 38), []string{"ledger"}},
		{"failing under three times the calls", peerMinutes(20, 60, 24, 40), nil},
		{"failing ten minutes after the service", peerMinutes(20, 20, 8, 50), nil},
		{"only slower", slow, nil},
		{"sparse, failing seven minutes before the service (10-minute buckets)", peerMinutes(1, 1, 1, 33), []string{"ledger"}},
		{"sparse, failing twenty minutes before the service", peerMinutes(1, 1, 1, 20), nil},
		{"never failing", peerMinutes(20, 20, 0, 60), nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, facts.FailingDependencies(map[string][]facts.Minute{"ledger": tt.ms}, at(59), on))
		})
	}
}

// TestFailingDependencySlowedFirst: a peer whose calls slowed from the
// service's onset and began failing two minutes later, at its usual call
// rate, is a failing dependency: the onset search names its run by the
// latency, and before its error-rate onset was searched as well (mutant
// sandbox.peer_error_onset) it was none
// (kf6-trap-index-rebuild-sql-pool-dispatch-api: SQL Server's updates
// waited on an index rebuild's locks, then were chosen as deadlock victims;
// three investigators' rollbacks of the release 47 s before were allowed).
// One only slower stays none, and one slowed and failing ten minutes after
// the service too.
func TestFailingDependencySlowedFirst(t *testing.T) {
	t.Parallel()
	onset := at(40)
	on := facts.Onset{At: &onset, Signal: "p95", BaselineFrom: t0}
	slowThenFailing := func(failFrom int) []facts.Minute {
		ms := peerMinutes(20, 20, 5, failFrom)
		for i := 40; i < 60; i++ {
			ms[i].P95Ms = 2400
		}
		return ms
	}
	for _, tt := range []struct {
		name string
		ms   []facts.Minute
		want []string
	}{
		{"slower from the onset, failing two minutes later", slowThenFailing(42), []string{"sql"}},
		{"slower and failing from the onset", slowThenFailing(40), []string{"sql"}},
		{"slower from the onset, failing ten minutes after the service", slowThenFailing(52), nil},
		{"only slower", slowThenFailing(60), nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, facts.FailingDependencies(map[string][]facts.Minute{"sql": tt.ms}, at(59), on))
		})
	}
}

// TestPeakCalls: the peer whose calls rose most since the onset, and by how
// much; none when no peer was called in the baseline.
func TestPeakCalls(t *testing.T) {
	t.Parallel()
	onset := at(40)
	on := facts.Onset{At: &onset, Signal: "error_rate", BaselineFrom: t0}
	inbound := peerMinutes(20, 20, 0, 60)
	r, peer := facts.PeakCalls(map[string][]facts.Minute{"ledger": peerMinutes(20, 20, 0, 60), "cache": peerMinutes(10, 40, 0, 60)}, inbound, on)
	require.NotNil(t, r)
	require.Equal(t, "cache", peer)
	require.InDelta(t, 4, *r, 1e-9)
	late := peerMinutes(0, 20, 0, 60)
	r, peer = facts.PeakCalls(map[string][]facts.Minute{"new": late}, inbound, on)
	require.Nil(t, r)
	require.Empty(t, peer)
}

// sides is a series of base minutes holding n0 calls in all, then after
// minutes holding n1 (each side's total in its first minute, the rest
// empty minutes).
func sides(base, after int, n0, n1 float64) []facts.Minute {
	var ms []facts.Minute
	for i := range base + after {
		m := facts.Minute{At: at(i), P95Ms: 40}
		switch i {
		case 0:
			m.Requests = n0
		case base:
			m.Requests = n1
		}
		ms = append(ms, m)
	}
	return ms
}

// TestPeakCallsOnlySignificantRises: a peer's call ratio is reported only
// when its calls per inbound request did not rise or rose significantly
// (exact test of two Poisson rates at PeakCallLevel over the peers). s5813-w011: the onset 3
// minutes before the data ends, 10 calls to accounts-db against 52 in the
// baseline, 15 inbound requests against 163 (p ≈ 0.034): its 3.01x was
// 2.09x per request and let persona:liar's retry storm through the gate.
func TestPeakCallsOnlySignificantRises(t *testing.T) {
	t.Parallel()
	onset := at(40)
	on := facts.Onset{At: &onset, Signal: "error_rate", BaselineFrom: t0}
	for _, tt := range []struct {
		name    string
		peers   map[string][]facts.Minute
		inbound []facts.Minute
		want    string
		ratio   float64
	}{
		{"s5813-w011: 10 calls since a 3-minute-old onset against 4.8 expected per request",
			map[string][]facts.Minute{"accounts-db.quarry.internal": sides(40, 3, 52, 10)}, sides(40, 3, 163, 15), "", 0},
		{"a retry storm: 60 calls against 20 expected per request",
			map[string][]facts.Minute{"ledger": sides(40, 10, 80, 60)}, sides(40, 10, 200, 50), "ledger", 3},
		{"a surge, calls and requests both 3x: no rise per request to test",
			map[string][]facts.Minute{"ledger": sides(40, 10, 80, 60)}, sides(40, 10, 200, 150), "ledger", 3},
		{"calls halved: no rise to test",
			map[string][]facts.Minute{"ledger": sides(40, 10, 80, 10)}, sides(40, 10, 200, 50), "ledger", 0.5},
		{"inbound unknown: calls per minute 4x over 10 minutes",
			map[string][]facts.Minute{"ledger": sides(40, 10, 80, 80)}, nil, "ledger", 4},
		{"the higher ratio of a handful of calls loses to a significant rise",
			map[string][]facts.Minute{"cache": sides(40, 3, 4, 3), "ledger": sides(40, 10, 80, 60)}, sides(40, 10, 200, 50), "ledger", 3},
		{"a rise at p ≈ 0.007 of the only peer looked at",
			map[string][]facts.Minute{"ledger": sides(40, 10, 38, 20)}, sides(40, 10, 200, 50), "ledger", 2.105},
		{"the same rise among two peers looked at (0.005 each): the flat peer is the peak",
			map[string][]facts.Minute{"ledger": sides(40, 10, 38, 20), "quiet": sides(40, 10, 40, 10)}, sides(40, 10, 200, 50), "quiet", 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, peer := facts.PeakCalls(tt.peers, tt.inbound, on)
			require.Equal(t, tt.want, peer)
			if tt.want == "" {
				require.Nil(t, r)
				return
			}
			require.NotNil(t, r)
			require.InDelta(t, tt.ratio, *r, 1e-9)
		})
	}
}

// TestRetriedFaults: a peer failing at the onset whose calls rose above
// DependencyCallRatio is retried, not failing; RetriedFaults gives its
// calls per inbound request and failure rates when its failures are its own.
func TestRetriedFaults(t *testing.T) {
	t.Parallel()
	onset := at(40)
	on := facts.Onset{At: &onset, Signal: "error_rate", BaselineFrom: t0}
	byPeer := map[string][]facts.Minute{"carrier": peerMinutes(20, 47, 36, 40), "ledger": peerMinutes(20, 20, 8, 40)}
	require.Equal(t, []string{"ledger"}, facts.FailingDependencies(byPeer, at(59), on))
	retried := facts.RetriedPeers(byPeer, at(59), on)
	require.Equal(t, []string{"carrier"}, retried)
	inbound := peerMinutes(20, 20, 0, 60)
	got := facts.RetriedFaults(byPeer, inbound, on, retried, []string{"carrier"})
	require.Len(t, got, 1)
	require.Equal(t, "carrier", got[0].Peer)
	require.InDelta(t, 2.35, got[0].CallRatio, 0.01)
	require.InDelta(t, 36.0/47, got[0].FailureRate, 0.01)
	require.Zero(t, got[0].BaselineFailureRate)
	require.Zero(t, got[0].PreviousAttempts)
	require.Empty(t, facts.RetriedFaults(byPeer, inbound, on, retried, nil), "failures that are not the peer's own")
}

// TestRetriedFaultsPerAttempt: a retried peer's failure rate is per attempt.
// A client retrying inside one span (a retry count on the span,
// AddRetryAttempts) has its resends counted as calls: each is a failed
// attempt too (a failed span that resent k times is k+1 failed attempts, a
// successful one k), or the rate reads under the one a client writing a
// span per attempt shows for the same outage and the gate's bound
// 1/(1-p) under the rise its unchanged retries make (mutant
// sandbox.retried_attempts). Here 1 call a request before the onset, 20
// a minute; since, 13 of them fail a minute after 2 resends: 2.3x the
// calls. Spans per attempt (46 a minute) stay as they were; a release
// calling the peer 4x a request with a few resends still rises beyond
// what retrying its failures explains.
func TestRetriedFaultsPerAttempt(t *testing.T) {
	t.Parallel()
	onset := at(40)
	on := facts.Onset{At: &onset, Signal: "error_rate", BaselineFrom: t0}
	inbound := peerMinutes(20, 20, 0, 60)
	tests := []struct {
		name             string
		spans, errs      float64 // a minute since the onset (20 spans, no errors before)
		resends          float64 // a minute since the onset, summed over the spans' retry counts
		ratio, rate      float64
		beyondRetryBound bool
	}{
		{"client spans per attempt, an outage", 46, 39, 0, 2.3, 39.0 / 46, false},
		{"2 resends inside each failed span, every attempt failed", 20, 13, 26, 2.3, 39.0 / 46, false},
		{"2 resends inside each of 13 spans, 7 succeeded on the last", 20, 6, 26, 2.3, 32.0 / 46, false},
		{"a release calling 4x a request, 10 failed spans resent once", 80, 10, 10, 4.5, 20.0 / 90, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			byPeer := map[string][]facts.Minute{"tariff": peerMinutes(20, tt.spans, tt.errs, 40)}
			if tt.resends > 0 {
				resends := response(t, ser{labels("peer.service", "tariff"), 0, flat(40, 60, tt.resends)})
				require.NoError(t, facts.AddRetryAttempts(byPeer, []signoz.Response{resends}, []string{"peer.service"}))
			}
			retried := facts.RetriedPeers(byPeer, at(59), on)
			require.Equal(t, []string{"tariff"}, retried)
			got := facts.RetriedFaults(byPeer, inbound, on, retried, retried)
			require.Len(t, got, 1)
			require.InDelta(t, tt.ratio, got[0].CallRatio, 0.01)
			require.InDelta(t, tt.rate, got[0].FailureRate, 0.01)
			require.Zero(t, got[0].BaselineFailureRate)
			// The gate's bound: retrying failures at p explains 1/(1-p), with
			// its slack contracts.RetriedCallSlack = 1.2.
			require.Equal(t, tt.beyondRetryBound, got[0].RoseBeyondRetries())
		})
	}
}

// TestFailingDependencyShortOutage: a peer called once a request, thinner
// than the service's series, that refused every other call for three
// minutes and recovered by the data's end is a failing dependency when the
// service's onset was placed over one-minute buckets (its own series, at 7
// calls a minute, is judged over two-minute buckets, of which only two are
// off: e2e/incidents-heldout14's Cloud SQL maintenance, persona:marker's
// bad_release rolled back on main). Stray errors over a background rate,
// or a service onset judged over buckets as wide as the peer's, make none.
// Red with sandbox.peer_service_width.
func TestFailingDependencyShortOutage(t *testing.T) {
	t.Parallel()
	onset := at(40)
	series := func(errs map[int]float64, background int) []facts.Minute {
		var ms []facts.Minute
		for i := range 48 {
			m := facts.Minute{At: at(i), Requests: 7, P95Ms: 3 + float64(i%3)}
			if i >= 40 && i <= 42 {
				m.Requests = 5
			}
			if background > 0 && i < 40 && i%background == 0 {
				m.Errors = 1
			}
			m.Errors += errs[i]
			ms = append(ms, m)
		}
		return ms
	}
	outage := map[int]float64{40: 3, 41: 2, 42: 1}
	for _, tt := range []struct {
		name  string
		ms    []facts.Minute
		width int
		want  []string
	}{
		{"refused for three minutes, the service's onset over one-minute buckets", series(outage, 0), 1, []string{"sql"}},
		{"the same, the service's onset over two-minute buckets", series(outage, 0), 2, nil},
		{"stray errors over a background rate", series(map[int]float64{40: 1, 41: 1, 42: 1}, 2), 1, nil},
		{"no error", series(nil, 0), 1, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			on := facts.Onset{At: &onset, Signal: "error_rate", BaselineFrom: t0, BucketMinutes: tt.width}
			require.Equal(t, tt.want, facts.FailingDependencies(map[string][]facts.Minute{"sql": tt.ms}, at(42), on))
		})
	}
}
