package facts

import (
	"fmt"
	"time"

	"agentk/contracts"
	"agentk/platform/mutant"
)

// SlowDependencyShare is the least share of the entry spans' added latency
// (median p95 per minute since the onset over the baseline's) that a slow
// dependency's client spans must have added themselves to explain it.
const SlowDependencyShare = 0.5

// SlowDependency is a peer whose client spans slowed at the onset: their
// median p95 per minute in the service's baseline and since its onset.
type SlowDependency struct {
	Peer            string
	BeforeMs, NowMs float64
}

// SlowDependencies lists the peers of the service's client spans that were
// called before the onset, are called since at no more than
// contracts.DependencyCallRatio of their baseline rate (a retry storm
// multiplies the calls), whose client spans' series left its baseline after
// the service's baseline began and at most CoRegressionWindow after its onset
// (FindOnset on the peer's own series: a slow dependency may slow the
// service's requests before their errors place its onset), whose median p95
// per minute since the onset is DefaultMargins' departure from its baseline's,
// and whose added p95 is at least SlowDependencyShare of the added p95 of the
// service's entry spans (entry), itself at least DefaultMargins.P95AbsMs: a
// dependency that slowed under the service's ordinary use of it. A release
// that slows the service's own code leaves its client spans as fast as they
// were.
func SlowDependencies(byPeer map[string][]Minute, entry []Minute, alertAt time.Time, on Onset) []SlowDependency {
	added := MedianP95(between(entry, *on.At, time.Time{})) - MedianP95(between(entry, on.BaselineFrom, *on.At))
	if added < DefaultMargins.P95AbsMs {
		return nil
	}
	var out []SlowDependency
	for _, peer := range sortedKeys(byPeer) {
		if d, ok := slowPeer(byPeer[peer], alertAt, on, added); ok {
			d.Peer = peer
			out = append(out, d)
		}
	}
	return out
}

// slowPeer judges one peer's series for SlowDependencies.
func slowPeer(ms []Minute, alertAt time.Time, on Onset, added float64) (SlowDependency, bool) {
	o := FindOnset(ms, alertAt, DefaultMargins)
	if o.At == nil {
		return SlowDependency{}, false
	}
	if o.At.Before(on.BaselineFrom) || o.At.Sub(*on.At) > CoRegressionWindow {
		return SlowDependency{}, false
	}
	if r := TrafficRatio(ms, on.BaselineFrom, *on.At); r == nil || *r > contracts.DependencyCallRatio {
		return SlowDependency{}, false
	}
	d := SlowDependency{BeforeMs: MedianP95(between(ms, on.BaselineFrom, *on.At)), NowMs: MedianP95(between(ms, *on.At, time.Time{}))}
	m := DefaultMargins
	if d.BeforeMs <= 0 || d.NowMs < max(d.BeforeMs*m.P95Factor, d.BeforeMs+m.P95AbsMs) {
		return SlowDependency{}, false
	}
	if d.NowMs-d.BeforeMs < SlowDependencyShare*added {
		return SlowDependency{}, false
	}
	return d, true
}

// between is the minutes of ms in [from, to); a zero to has no end.
func between(ms []Minute, from, to time.Time) []Minute {
	var out []Minute
	for _, m := range ms {
		if !m.At.Before(from) && (to.IsZero() || m.At.Before(to)) && m.Requests > 0 {
			out = append(out, m)
		}
	}
	return out
}

// SlowPeers is the peers of deps, less those named as a downstream effect.
func SlowPeers(deps []SlowDependency, downstream []string) []string {
	var names []string
	for _, d := range deps {
		names = append(names, d.Peer)
	}
	return WithoutDownstream(names, downstream)
}

// EarliestWithSlowDependency is on, or the onset of the calls to a slow
// dependency of deps (SlowDependencies judged against on) where those calls
// left their own baseline (FindOnset on the peer's series, byPeer) before
// on.At: a dependency that slowed under the service's ordinary use of it
// slowed the service's requests from then, before their errors or their
// own latency left the margins (at 1 in 32 sampling the errors of a
// retrieval deadline show minutes late). DESIGN rule 16: a signal may move
// the onset earlier, never later. The calls' filter (filter, by peer) and
// threshold let RefineOnset narrow it over their spans; the baseline and
// the thresholds stay the service's (the origin and propagation read the
// service's spans with them).
func EarliestWithSlowDependency(on Onset, byPeer map[string][]Minute, deps []SlowDependency, alertAt time.Time, filter func(peer string) string) Onset {
	if on.At == nil || on.Short || mutant.Off(mutant.SandboxSlowDependencyOnset) {
		return on
	}
	out := on
	for _, d := range deps {
		o := FindOnset(byPeer[d.Peer], alertAt, DefaultMargins)
		if o.At == nil || !o.At.Before(*out.At) || o.At.Before(on.BaselineFrom) {
			continue
		}
		// The calls' onset with the service's baseline and thresholds; what
		// placed on (its refinement, operation, status, quality, rule) is not
		// carried over.
		out = Onset{At: o.At, Signal: o.Signal, BucketMinutes: o.BucketMinutes,
			BaselineErrorRate: on.BaselineErrorRate, BaselineP95Ms: on.BaselineP95Ms, ErrorThreshold: on.ErrorThreshold, P95ThresholdMs: on.P95ThresholdMs,
			BaselineFrom: on.BaselineFrom, BaselineMinutes: on.BaselineMinutes, BaselineRequests: on.BaselineRequests,
			Dependency: d.Peer, DependencyP95Ms: o.P95ThresholdMs, OpFilter: filter(d.Peer)}
		out.Reason = fmt.Sprintf("the calls to %s, a dependency that slowed at its usual call rate (p95 %s -> %s ms): %s (the service's other signals: %s)",
			d.Peer, fmtF(d.BeforeMs), fmtF(d.NowMs), o.Reason, on.Reason)
	}
	return out
}
