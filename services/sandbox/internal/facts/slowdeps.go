package tools

import (
	"fmt"
	"strings"
	"time"

	"agentk/contracts"
	"agentk/services/sandbox/internal/compact"
)

// SlowDependencyShare is the least share of the entry spans' added latency
// (median p95 per minute since the onset over the baseline's) that a slow
// dependency's client spans must have added themselves to explain it.
const SlowDependencyShare = 0.5

// slowDependency is a peer whose client spans slowed at the onset: their
// median p95 per minute in the service's baseline and since its onset.
type slowDependency struct {
	peer            string
	beforeMs, nowMs float64
}

// slowDependencies lists the peers of the service's client spans that were
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
func slowDependencies(byPeer map[string][]Minute, entry []Minute, alertAt time.Time, on Onset) []slowDependency {
	added := medianP95(between(entry, *on.At, time.Time{})) - medianP95(between(entry, on.BaselineFrom, *on.At))
	if added < DefaultMargins.P95AbsMs {
		return nil
	}
	var out []slowDependency
	for _, peer := range sortedKeys(byPeer) {
		if d, ok := slowPeer(byPeer[peer], alertAt, on, added); ok {
			d.peer = peer
			out = append(out, d)
		}
	}
	return out
}

// slowPeer judges one peer's series for slowDependencies.
func slowPeer(ms []Minute, alertAt time.Time, on Onset, added float64) (slowDependency, bool) {
	o := FindOnset(ms, alertAt, DefaultMargins)
	if o.At == nil {
		return slowDependency{}, false
	}
	if o.At.Before(on.BaselineFrom) || o.At.Sub(*on.At) > CoRegressionWindow {
		return slowDependency{}, false
	}
	if r := trafficRatio(ms, on.BaselineFrom, *on.At); r == nil || *r > contracts.DependencyCallRatio {
		return slowDependency{}, false
	}
	d := slowDependency{beforeMs: medianP95(between(ms, on.BaselineFrom, *on.At)), nowMs: medianP95(between(ms, *on.At, time.Time{}))}
	m := DefaultMargins
	if d.beforeMs <= 0 || d.nowMs < max(d.beforeMs*m.P95Factor, d.beforeMs+m.P95AbsMs) {
		return slowDependency{}, false
	}
	if d.nowMs-d.beforeMs < SlowDependencyShare*added {
		return slowDependency{}, false
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

// slowPeers is the peers of deps, less those named as a downstream effect.
func slowPeers(deps []slowDependency, downstream []string) []string {
	var names []string
	for _, d := range deps {
		names = append(names, d.peer)
	}
	return withoutDownstream(names, downstream)
}

// slowLine says which dependencies slowed and by how much, for the model
// and the human; empty when none is kept in peers.
func slowLine(deps []slowDependency, peers []string) string {
	var parts []string
	for _, d := range deps {
		for _, p := range peers {
			if p == d.peer {
				parts = append(parts, fmt.Sprintf("%s p95 %.0f ms -> %.0f ms", compact.Quote(d.peer), d.beforeMs, d.nowMs))
			}
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "dependencies slower at their usual call rate since the onset (client spans, median p95 per minute, baseline -> since): " + strings.Join(parts, ", ")
}

// joinLine appends line l to text on a line of its own; an empty l adds
// nothing.
func joinLine(text, l string) string {
	if l == "" {
		return text
	}
	return strings.TrimPrefix(text+"\n", "\n") + l
}
