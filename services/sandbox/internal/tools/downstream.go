package tools

import (
	"fmt"
	"slices"
	"strings"

	"agentk/platform/mutant"
)

// Downstream effects (issue 35 item 5, the mirror of propagation): a callee
// whose errors or latency changed because the affected service calls it
// differently since its onset (fewer calls, calls it abandons, calls from its
// own failing spans) regressed with it by construction and is no shared
// cause. Only a callee that regressed on calls the affected service did not
// change points elsewhere; and a callee where the affected service's failures
// begin is the origin (origin.go), never an effect.

// isDownstream reports whether a co-regressed callee, judged by judgeOne,
// regressed only as the affected service's effect: most of its failing
// traces fail beneath the affected service's calls, in most of them the
// affected service's failure does not begin in the callee (else the callee
// is a cause: origin.go), and the affected service either calls it less
// (its request rate since its onset at most FewerCallsRatio of its baseline)
// or calls it, in most of those traces, from spans whose failure begins
// elsewhere (it abandons the calls, or fails around them).
func isDownstream(p propagation) bool {
	share := func(n int) bool { return float64(n) >= PropagationShare*float64(p.traces) }
	if p.traces == 0 || !share(p.under) {
		return false
	}
	if mutant.Off(mutant.SandboxDownstreamEffect) {
		return true
	}
	fewer := p.loadKnown && p.load <= FewerCallsRatio
	return !share(p.cause) && (fewer || share(p.effect))
}

// effectOf reports whether trace holds a failing span of svc beneath a
// failing span of caller whose own failure does not begin in svc (effect:
// the caller failed on its own and took svc's span down with it, by
// abandoning the call or failing around it), and whether it holds one where
// the caller's failure does begin in svc (cause).
func effectOf(trace map[string]traceSpan, svc, caller string) (effect, cause bool) {
	t := &spanTree{spans: trace, kids: map[string][]string{}}
	for id, s := range trace {
		t.kids[s.parent] = append(t.kids[s.parent], id)
	}
	for p := range t.kids {
		slices.Sort(t.kids[p])
	}
	for _, s := range trace {
		if s.service != svc || !s.failing {
			continue
		}
		a, ok := nearestOf(trace, s, caller)
		if !ok || !a.failing {
			continue
		}
		var ends []traceSpan
		if a.err {
			ends = t.errorBeginnings(a, 0)
		} else {
			ends = []traceSpan{t.latencyBeginning(a)}
		}
		if slices.ContainsFunc(ends, func(e traceSpan) bool { return e.service == svc }) {
			cause = true
		} else {
			effect = true
		}
	}
	return effect, cause
}

// nearestOf is s's nearest ancestor span of service svc.
func nearestOf(trace map[string]traceSpan, s traceSpan, svc string) (traceSpan, bool) {
	cur := s
	for hop := 0; hop < 64 && cur.parent != ""; hop++ {
		p, ok := trace[cur.parent]
		if !ok {
			break
		}
		if p.service == svc {
			return p, true
		}
		cur = p
	}
	return traceSpan{}, false
}

// downstreamLine says which callees regressed only as svc's effect.
func downstreamLine(svc string, downstream []string, seen map[string]propagation) string {
	var parts []string
	for _, d := range downstream {
		p := seen[d]
		if p.loadKnown && p.load <= FewerCallsRatio {
			parts = append(parts, fmt.Sprintf("%s (%d of %d failing traces beneath %s's calls, which fell to %sx)", d, p.under, p.traces, svc, fmtF(p.load)))
		} else {
			parts = append(parts, fmt.Sprintf("%s (%d of %d failing traces fail beneath %s's own failing spans)", d, p.effect, p.traces, svc))
		}
	}
	return "callees that regressed only as an effect of " + svc + " (it calls them differently since the onset; downstream, not a shared cause): " + strings.Join(parts, ", ")
}
