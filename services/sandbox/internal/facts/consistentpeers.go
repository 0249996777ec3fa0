package facts

import (
	"math"
	"slices"
	"sort"
	"time"

	"agentk/contracts"
	"agentk/platform/mutant"
	"agentk/platform/stats"
	"agentk/services/sandbox/internal/signoz"
)

// A tail sampler keeps every failing trace and a share of the clean ones,
// so every count of kept spans moves with the failures: the calls to a
// dependency rise with the failing traces the sampler keeps (heldout13's
// pr13-trap-opensearch-yellow-catalog: OpenSearch's kept calls 4.66x, the
// kept entry spans 3.35x, the arrivals 1.15x), and a dependency that began
// failing at its usual call rate reads as one whose calls multiplied. Its
// failing and slow dependencies are then judged again within the traces a
// consistent sampler kept by trace id alone (ConsistentArrivals: both
// samples' traces under its threshold), which are a uniform share of the
// arrivals whatever their outcome, as a head sampler's are: each peer's
// calls out of those traces, before the onset and since, counted over the
// samples' own spans of time.
//
// A peer fails within that share when its calls since the onset fail at
// DefaultMargins' departure from its baseline share (twice it, and 0.05
// more) on at least MinConsistentFailures calls, unlikely under the
// baseline's share (ConsistentPeerAlpha); it slowed when its p95 since is
// DefaultMargins' departure from its baseline's on at least
// MinConsistentCalls calls each side and added at least
// SlowDependencyShare of the counted entry spans' added p95. Either is
// reported only at its usual call rate (CallRatio at most
// contracts.DependencyCallRatio, and the calls a counted trace too: a
// handful of counted traces since the onset make a noisy rate a minute). What this finds only adds failing and
// slow dependencies, each of which only denies a rollback.

// Consistent-peer thresholds.
const (
	MinConsistentFailures = 3
	MinConsistentCalls    = 10
	ConsistentPeerAlpha   = 1e-3
)

// CountedSample is the counted traces of a consistent sample (those
// whose reading is at or under the threshold of a), by trace id, with the
// span of time the sample covers.
type CountedSample struct {
	IDs     map[string]SampledTrace
	Minutes float64
}

// CountedTraces are the traces of s that a counts (its reading at or under
// its threshold); nil when a is nil or its reading is unknown.
func CountedTraces(a *contracts.ConsistentArrivals, s TraceSample) *CountedSample {
	if a == nil {
		return nil
	}
	i := slices.IndexFunc(SamplerReadings, func(r SamplerReading) bool { return r.Name == a.Reading })
	if i < 0 {
		return nil
	}
	out := &CountedSample{IDs: map[string]SampledTrace{}, Minutes: s.span().Minutes()}
	for _, t := range s.Traces {
		if b, ok := traceBytes(t.TraceID); ok && SamplerReadings[i].R(b) <= a.Threshold {
			out.IDs[t.TraceID] = t
		}
	}
	return out
}

// peerSide is one side's calls to a peer: their count, failures and
// durations in milliseconds.
type peerSide struct {
	calls, errors int64
	ms            []float64
}

// ConsistentPeers counts svc's outbound spans of rows (keys name the
// peer, as CallPeer reads them) within the counted traces of the baseline
// (base) and since the onset (since), and judges each peer (the comment
// above); peers in name order. Nil with either side missing.
func ConsistentPeers(rows []signoz.RawRow, svc string, keys []string, base, since *CountedSample) []contracts.ConsistentPeer {
	if base == nil || since == nil || base.Minutes <= 0 || since.Minutes <= 0 {
		return nil
	}
	sides := map[string]*[2]peerSide{}
	for _, r := range rows {
		d := r.Data
		if ResourceValue(d, "service.name") != svc || !outboundKind(d) {
			continue
		}
		id := AttrString(d, "trace_id")
		side := -1
		if _, ok := base.IDs[id]; ok {
			side = 0
		} else if _, ok := since.IDs[id]; ok {
			side = 1
		}
		peer := CallPeer(d, keys)
		if side < 0 || peer == "" {
			continue
		}
		if sides[peer] == nil {
			sides[peer] = &[2]peerSide{}
		}
		s := &sides[peer][side]
		s.calls++
		if failed(d) {
			s.errors++
		}
		if v, ok := signoz.ToFloat(AttrValue(d, "duration_nano")); ok {
			s.ms = append(s.ms, v/1e6)
		}
	}
	added := quantile(countedMs(since), 0.95) - quantile(countedMs(base), 0.95)
	var out []contracts.ConsistentPeer
	for _, peer := range sortedKeys(sides) {
		b, a := sides[peer][0], sides[peer][1]
		p := contracts.ConsistentPeer{Peer: peer, BaselineCalls: b.calls, BaselineErrors: b.errors, BaselineP95Ms: nanToZero(quantile(b.ms, 0.95)),
			Calls: a.calls, Errors: a.errors, P95Ms: nanToZero(quantile(a.ms, 0.95))}
		if b.calls == 0 {
			out = append(out, p)
			continue
		}
		p.CallRatio = round((float64(a.calls) / since.Minutes) / (float64(b.calls) / base.Minutes))
		usual := p.CallRatio <= contracts.DependencyCallRatio && perTrace(b, a, base, since) <= contracts.DependencyCallRatio
		p.Failing = usual && consistentFailing(b, a)
		p.Slow = usual && consistentSlow(p, b, a, added)
		out = append(out, p)
	}
	return out
}

// perTrace is the calls a counted trace since the onset over the
// baseline's: a retry storm multiplies the calls each request sends
// whatever the arrivals did (s3535-w100-retry-storm-pricing under the
// lower 64 bits: 12 calls in 12 counted traces since the onset, 184 in
// 431 before, 2.3x a trace while its arrivals read 0.62x, so 1.44x a
// minute, under DependencyCallRatio).
func perTrace(b, a peerSide, base, since *CountedSample) float64 {
	if len(since.IDs) == 0 || len(base.IDs) == 0 || b.calls == 0 {
		return math.Inf(1)
	}
	return (float64(a.calls) / float64(len(since.IDs))) / (float64(b.calls) / float64(len(base.IDs)))
}

// consistentFailing says the peer's calls since the onset (a) fail at
// DefaultMargins' departure from the baseline's share (b), unlikely under
// it.
func consistentFailing(b, a peerSide) bool {
	if a.errors < MinConsistentFailures || a.calls == 0 {
		return false
	}
	p0, p1 := float64(b.errors)/float64(b.calls), float64(a.errors)/float64(a.calls)
	m := DefaultMargins
	if p1 < math.Max(p0*m.ErrorRateFactor, p0+m.ErrorRateAbs) {
		return false
	}
	return stats.BinomTail(int(a.errors), int(a.calls), math.Max(p0, 1/float64(b.calls+1))) <= ConsistentPeerAlpha
}

// consistentSlow says the peer's p95 since the onset is DefaultMargins'
// departure from its baseline's on enough calls each side, and added at
// least SlowDependencyShare of the counted entry spans' added p95
// (added, at least DefaultMargins.P95AbsMs).
func consistentSlow(p contracts.ConsistentPeer, b, a peerSide, added float64) bool {
	m := DefaultMargins
	if len(b.ms) < MinConsistentCalls || len(a.ms) < MinConsistentCalls || math.IsNaN(added) || added < m.P95AbsMs || p.BaselineP95Ms <= 0 {
		return false
	}
	if p.P95Ms < math.Max(p.BaselineP95Ms*m.P95Factor, p.BaselineP95Ms+m.P95AbsMs) {
		return false
	}
	return p.P95Ms-p.BaselineP95Ms >= SlowDependencyShare*added
}

// countedMs are the counted entry spans' durations in milliseconds.
func countedMs(c *CountedSample) []float64 {
	out := make([]float64, 0, len(c.IDs))
	for _, t := range c.IDs {
		out = append(out, float64(t.Duration)/float64(time.Millisecond))
	}
	sort.Float64s(out)
	return out
}

// ConsistentFailingPeers and ConsistentSlowPeers name the peers of ps
// judged failing, or slow, within the consistent share; none under the
// mutant sandbox.consistent_dependencies.
func ConsistentFailingPeers(ps []contracts.ConsistentPeer) []string {
	return consistentNamed(ps, func(p contracts.ConsistentPeer) bool { return p.Failing })
}

// ConsistentSlowPeers: see ConsistentFailingPeers.
func ConsistentSlowPeers(ps []contracts.ConsistentPeer) []string {
	return consistentNamed(ps, func(p contracts.ConsistentPeer) bool { return p.Slow })
}

func consistentNamed(ps []contracts.ConsistentPeer, keep func(contracts.ConsistentPeer) bool) []string {
	if mutant.Off(mutant.SandboxConsistentDependencies) {
		return nil
	}
	var out []string
	for _, p := range ps {
		if keep(p) {
			out = append(out, p.Peer)
		}
	}
	return out
}

// nanToZero is v, or 0 for NaN (JSON carries no NaN).
func nanToZero(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}
