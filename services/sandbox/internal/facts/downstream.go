package facts

import (
	"slices"

	"agentk/platform/mutant"
)

// Downstream effects (issue 35 item 5, the mirror of propagation): a callee
// whose errors changed because the affected service calls it differently
// since its onset regressed with it by construction and is no shared cause.
// Only a callee that regressed on calls the affected service did not change
// points elsewhere; and a callee where the affected service's failures begin
// is the origin (origin.go), never an effect. The change read today is the
// abandoned call (a release that gives up on its calls, whose callee then
// fails with the cancellation); see IsDownstream for what is not read yet.

// IsDownstream reports whether a co-regressed callee, judged by judgeOne,
// regressed only as the affected service's effect: most of its failing
// traces fail beneath the affected service's calls, in most of them the
// affected service abandoned the call (abandoned: it gave up sooner than the
// callee usually answers, and the callee failed after it was gone), and in
// fewer than half the callee failed on a call that was not abandoned (a
// cause, whatever the caller did around it).
//
// A callee the affected service calls less (or calls with other requests)
// since the onset is not judged an effect here: its failures beneath calls
// that were not abandoned count as a cause, so it stays co-regressed (fail
// closed). Telling those from a shared cause needs the callee's failures per
// minute against its baseline, not yet measured.
func IsDownstream(p Propagation) bool {
	share := func(n int) bool { return float64(n) >= PropagationShare*float64(p.Traces) }
	if p.Traces == 0 || !share(p.Under) {
		return false
	}
	if mutant.Off(mutant.SandboxDownstreamEffect) {
		return true
	}
	return !share(p.Cause) && share(p.Effect)
}

// effectOf reports whether trace holds a failing span of svc beneath a call
// of caller that caller abandoned (effect), and whether it holds one beneath
// a call of caller that was not abandoned (cause: svc failed on it).
func effectOf(trace map[string]traceSpan, svc, caller string, baseP95 map[string]float64) (effect, cause bool) {
	t := &spanTree{spans: trace, baseP95: baseP95}
	for _, s := range trace {
		if s.service != svc || !s.failing {
			continue
		}
		a, c, ok := nearestOf(trace, s, caller)
		if !ok {
			continue
		}
		if a.failing && c.err && t.abandoned(a, c) {
			effect = true
		} else {
			cause = true
		}
	}
	return effect, cause
}

// WithoutDownstream drops from the failing dependencies the peers named as a
// downstream callee: their client spans fail because the service abandons or
// changes its calls to them, not under its ordinary use of them. A peer named
// otherwise (a host name) stays.
func WithoutDownstream(deps, downstream []string) []string {
	if mutant.Off(mutant.SandboxDownstreamEffect) {
		return deps
	}
	var out []string
	for _, d := range deps {
		if !slices.Contains(downstream, d) {
			out = append(out, d)
		}
	}
	return out
}

// nearestOf is s's nearest ancestor span of service svc, and that
// ancestor's child on the way down to s.
func nearestOf(trace map[string]traceSpan, s traceSpan, svc string) (ancestor, child traceSpan, ok bool) {
	cur := s
	for hop := 0; hop < 64 && cur.parent != ""; hop++ {
		p, found := trace[cur.parent]
		if !found {
			break
		}
		if p.service == svc {
			return p, cur, true
		}
		cur = p
	}
	return traceSpan{}, traceSpan{}, false
}
