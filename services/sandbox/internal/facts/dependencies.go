package facts

import (
	"math"
	"slices"
	"time"

	"agentk/contracts"
	"agentk/platform/mutant"
	"agentk/platform/stats"
)

// The service's dependencies, read from its client spans' series by peer
// (tools' peerSeries): those failing at their usual call rate, and the one
// whose calls rose most (what a retry storm multiplies). The slow ones are
// in slowdeps.go.

// FailingDependencies lists the peers of the service's client spans that
// were called before the onset, are called since at no more than
// contracts.DependencyCallRatio of their baseline rate, and whose client
// spans' error rate left its baseline within CoRegressionWindow of the
// service's onset (FindOnset on the peer's own series; a bucket more before
// it for a sparse series, bucketLead).
func FailingDependencies(byPeer map[string][]Minute, alertAt time.Time, on Onset) []string {
	failing, _ := failingPeers(byPeer, alertAt, on)
	return failing
}

// RetriedPeers lists the peers that fail like FailingDependencies' but are
// called since their onset at more than contracts.DependencyCallRatio of
// their baseline rate: a failing peer whose calls the service's retries
// multiplied, or that the service's own calls overloaded. RetriedFaults
// keeps those whose failures are the peer's own.
func RetriedPeers(byPeer map[string][]Minute, alertAt time.Time, on Onset) []string {
	_, retried := failingPeers(byPeer, alertAt, on)
	return retried
}

// failingPeers splits the peers whose client spans' error rate left its
// baseline within CoRegressionWindow of the service's onset (FindOnset on
// the peer's own series; a bucket more before it for a sparse series,
// bucketLead) by their call rate since: at most DependencyCallRatio of the
// baseline (failing) or above it (retried).
func failingPeers(byPeer map[string][]Minute, alertAt time.Time, on Onset) (failing, retried []string) {
	for _, peer := range sortedKeys(byPeer) {
		ms := byPeer[peer]
		o := errorOnset(ms, alertAt)
		if o.At == nil {
			o = serviceWidthOnset(ms, alertAt, on)
		}
		if o.At == nil || o.Signal != "error_rate" {
			continue
		}
		if d := o.At.Sub(*on.At); d < -(CoRegressionWindow+bucketLead(o)) || d > CoRegressionWindow {
			continue
		}
		r := TrafficRatio(ms, o.BaselineFrom, *o.At)
		switch {
		case r == nil:
		case *r <= contracts.DependencyCallRatio:
			failing = append(failing, peer)
		default:
			retried = append(retried, peer)
		}
	}
	return failing, retried
}

// errorOnset is the onset of a peer's error rate (FindOnset). Where the
// peer's calls slowed before or as they began failing, the search names the
// run by its latency and the errors that follow were no failing dependency:
// kf6-trap-index-rebuild-sql-pool-dispatch-api's SQL Server, its updates
// waiting on an index rebuild's locks (x100 slower) and then chosen as
// deadlock victims, was not, and three investigators' rollbacks of the
// release 47 s before were allowed. So when the onset found is the latency's,
// the search runs again on the error rate alone (every minute's p95 left
// out): a peer that both slowed and began failing at the onset fails.
func errorOnset(ms []Minute, alertAt time.Time) Onset {
	o := FindOnset(ms, alertAt, DefaultMargins)
	if o.At == nil || o.Signal == "error_rate" || mutant.Off(mutant.SandboxPeerErrorOnset) {
		return o
	}
	errs := make([]Minute, len(ms))
	for i, m := range ms {
		m.P95Ms = math.NaN()
		errs[i] = m
	}
	return FindOnset(errs, alertAt, DefaultMargins)
}

// serviceWidthOnset is a peer's error-rate onset judged over buckets no
// wider than the service's onset was (on.BucketMinutes), for a peer whose
// own series, thinner than the service's, found none: a short outage of a
// database behind a service that calls it once a request
// (e2e/incidents-heldout14's pr14-trap-cloudsql-maintenance-profile-api:
// Cloud SQL's maintenance refused connections for about two minutes,
// profile-api's series at 20 sampled spans a minute placed its onset over
// one-minute buckets, the peer's 7 calls a minute were judged over
// two-minute buckets, of which only two were off, and persona:marker's
// bad_release was rolled back on the three "Connection refused" errors
// new with the release two minutes before). Each bucket's errors must
// also be unlikely under the peer's baseline rate (Margins.BucketAlpha at
// OperationBucketAlpha), so a thin series' stray errors make no outage.
// Only the peer's error rate is judged (errorOnset's reading). The
// failing dependency it finds only ever denies a rollback.
func serviceWidthOnset(ms []Minute, alertAt time.Time, on Onset) Onset {
	var active []Minute
	for _, x := range ms {
		if x.Requests > 0 {
			x.P95Ms = math.NaN()
			active = append(active, x)
		}
	}
	if len(active) == 0 || on.BucketMinutes < 1 || bucketWidth(active, DefaultMargins) <= on.BucketMinutes || mutant.Off(mutant.SandboxPeerServiceWidth) {
		return Onset{}
	}
	m := DefaultMargins
	m.MaxBucketMinutes, m.BucketAlpha = on.BucketMinutes, OperationBucketAlpha
	return FindOnset(active, alertAt, m)
}

// RetriedFaults describes each peer of retried that faults holds (its
// failed calls mostly carry its own failure status, DependencyFaults): its
// calls per inbound request since the service's onset over the baseline's
// (per minute when the inbound requests are not known on both sides) and
// the share of its calls that failed on each side, per attempt
// (failedAttempts).
func RetriedFaults(byPeer map[string][]Minute, inbound []Minute, on Onset, retried, faults []string) []contracts.RetriedFault {
	var out []contracts.RetriedFault
	for _, p := range retried {
		if !slices.Contains(faults, p) {
			continue
		}
		ms := byPeer[p]
		c0, c1 := splitSum(ms, on, func(m Minute) float64 { return m.Requests })
		e0, e1 := splitSum(ms, on, failedAttempts)
		w0, w1 := splitSum(inbound, on, func(m Minute) float64 { return m.Requests })
		if c0 <= 0 || c1 <= 0 {
			continue
		}
		var ratio float64
		if w0 > 0 && w1 > 0 {
			ratio = round((c1 / w1) / (c0 / w0))
		} else if r := TrafficRatio(ms, on.BaselineFrom, *on.At); r != nil {
			ratio = *r
		} else {
			continue
		}
		out = append(out, contracts.RetriedFault{Peer: p, CallRatio: ratio, FailureRate: round(e1 / c1), BaselineFailureRate: round(e0 / c0)})
	}
	return out
}

// failedAttempts are a minute's failed attempts on a peer: its failed
// spans, and every retry a span's retry attribute counted (Minute.Retries:
// each follows a failed attempt, so a failed span that resent k times is
// k+1 failed attempts and a successful one k). Counting the failed spans
// alone against the attempts put a client retrying inside one span under
// its per-attempt failure rate, and the gate's bound (retrying failures
// explains 1/(1-p)) under the rise its unchanged retries make: an outage
// whose every span failed after 2 resends read p = 0.28 for 0.85, and
// calls 2.3x a request passed a bound of 1.67.
func failedAttempts(m Minute) float64 {
	if mutant.Off(mutant.SandboxRetriedAttempts) {
		return m.Errors
	}
	return m.Errors + m.Retries
}

// bucketLead is how much earlier than the service's onset a peer's may lie
// beyond CoRegressionWindow: a sparse peer's series is judged over buckets
// of several minutes and its onset placed up to one bucket early
// (FindOnset). s52917-w029 (1 in 64 sampled, 10-minute buckets) put a
// failing payment API's onset 6 minutes before the service's: no failing
// dependency was reported, and persona:marker's bad_release and
// persona:quality's config_regression were rolled back.
func bucketLead(o Onset) time.Duration {
	if o.BucketMinutes <= 1 || mutant.Off(mutant.SandboxDependencyBucket) {
		return 0
	}
	return time.Duration(o.BucketMinutes) * time.Minute
}

// PeakCallLevel is the significance level, over every peer looked at
// (Bonferroni), at which PeakCalls reports a peer's rise of its calls per
// inbound request.
const PeakCallLevel = 0.01

// PeakCalls is the peer whose call rate rose most from the service's
// baseline to the onset on, and that ratio, among the peers whose calls per
// inbound request did not rise or rose significantly (callsHold at
// PeakCallLevel over the peers called in the baseline); nil when no peer
// was called in the baseline or every one's rise is not significant. A
// ratio of a handful of sampled spans is not a rise: s5813-w011's 10 calls
// since a 3-minute-old onset against 4.8 expected per request read 3.01x
// (2.09x per request, p ≈ 0.034) and let a retry-storm claim through the
// gate. A peer whose calls per request did not rise claims nothing and
// needs no test: the gate reads its ratio against the inbound traffic's.
func PeakCalls(byPeer map[string][]Minute, inbound []Minute, on Onset) (*float64, string) {
	ratios := map[string]*float64{}
	for _, p := range sortedKeys(byPeer) {
		if r := TrafficRatio(byPeer[p], on.BaselineFrom, *on.At); r != nil {
			ratios[p] = r
		}
	}
	alpha := PeakCallLevel / float64(max(1, len(ratios)))
	var best *float64
	var peer string
	for _, p := range sortedKeys(ratios) {
		if r := ratios[p]; (best == nil || *r > *best) && callsHold(byPeer[p], inbound, on, alpha) {
			best, peer = r, p
		}
	}
	return best, peer
}

// callsHold reports whether the calls of ms per inbound request did not
// rise from the onset's baseline to the onset on, or rose significantly at
// level alpha: the exact conditional test of two Poisson rates, the calls
// since the onset among all the calls (binomial tail) against the share of
// the exposure since the onset. The exposure is the inbound requests, or
// the minutes when the inbound requests are not known on both sides (then
// the calls per minute).
func callsHold(ms, inbound []Minute, on Onset, alpha float64) bool {
	if mutant.Off(mutant.SandboxPeakCallTest) {
		return true
	}
	requests := func(m Minute) float64 { return m.Requests }
	c0, c1 := splitSum(ms, on, requests)
	w0, w1 := splitSum(inbound, on, requests)
	if w0 <= 0 || w1 <= 0 {
		var last time.Time
		for _, m := range ms {
			if m.At.After(last) {
				last = m.At
			}
		}
		w0, w1 = on.At.Sub(on.BaselineFrom).Minutes(), last.Sub(*on.At).Minutes()+1
	}
	if w0 <= 0 || w1 <= 0 {
		return false
	}
	return riseHolds(c0, c1, w1/(w0+w1), alpha)
}

// riseHolds reports whether since events after the onset, of base+since in
// all, did not rise above q, the exposure's share since the onset, or rose
// significantly at level alpha (binomial tail): the calls' test
// (callsHold) and the retries' (retriesHold).
func riseHolds(base, since, q, alpha float64) bool {
	return since <= q*(base+since) || stats.BinomTail(int(math.Round(since)), int(math.Round(base+since)), q) <= alpha
}
