package facts

import (
	"time"

	"agentk/contracts"
)

// The service's dependencies, read from its client spans' series by peer
// (tools' peerSeries): those failing at their usual call rate, and the one
// whose calls rose most (what a retry storm multiplies). The slow ones are
// in slowdeps.go.

// FailingDependencies lists the peers of the service's client spans that
// were called before the onset, are called since at no more than
// contracts.DependencyCallRatio of their baseline rate, and whose client
// spans' error rate left its baseline within CoRegressionWindow of the
// service's onset (FindOnset on the peer's own series).
func FailingDependencies(byPeer map[string][]Minute, alertAt time.Time, on Onset) []string {
	var out []string
	for _, peer := range sortedKeys(byPeer) {
		ms := byPeer[peer]
		o := FindOnset(ms, alertAt, DefaultMargins)
		if o.At == nil || o.Signal != "error_rate" {
			continue
		}
		if d := o.At.Sub(*on.At); d < -CoRegressionWindow || d > CoRegressionWindow {
			continue
		}
		if r := TrafficRatio(ms, o.BaselineFrom, *o.At); r != nil && *r <= contracts.DependencyCallRatio {
			out = append(out, peer)
		}
	}
	return out
}

// PeakCalls is the peer whose call rate rose most from the service's
// baseline to the onset on, and that ratio; nil for no peer called in the
// baseline.
func PeakCalls(byPeer map[string][]Minute, on Onset) (*float64, string) {
	var best *float64
	var peer string
	for _, p := range sortedKeys(byPeer) {
		if r := TrafficRatio(byPeer[p], on.BaselineFrom, *on.At); r != nil && (best == nil || *r > *best) {
			best, peer = r, p
		}
	}
	return best, peer
}
