package contracts

import "math"

// RetriedCallSlack is how far the calls to a retried, failing peer must
// rise above what retrying its failures explains (RetriedFault.RetryBound)
// to be the service's own doing: the rise is read from sampled spans. The
// gate (deployment_related) and the rules investigator (its own-load and
// retried-fault features) read it through RetriedFault.RoseBeyondRetries.
const RetriedCallSlack = 1.2

// RetryBound is the most calls a request makes to the peer when its calls
// fail at rate p = FailureRate and every failed call is retried:
// 1 + p + ... + p^(N-1) under the previous version's seen limit of
// N = PreviousAttempts attempts, 1/(1-p) when it is unknown (no limit),
// +Inf when every call fails. A failure rate outside [0, 1] is clamped.
func (r RetriedFault) RetryBound() float64 {
	p := min(max(r.FailureRate, 0), 1)
	if r.PreviousAttempts > 0 {
		sum, term := 0.0, 1.0
		for range r.PreviousAttempts {
			sum += term
			term *= p
		}
		return sum
	}
	if p >= 1 {
		return math.Inf(1)
	}
	return 1 / (1 - p)
}

// RoseBeyondRetries reports whether the calls to the peer rose beyond
// RetriedCallSlack times RetryBound: calls the service itself began to make
// (a cache keyed by request id, a loop), which no retry policy, changed or
// not, explains. When it is false the retries followed the peer's own
// failures, and the rise says nothing about a release without the previous
// version's retry limit.
func (r RetriedFault) RoseBeyondRetries() bool {
	return r.CallRatio > RetriedCallSlack*r.RetryBound()
}
