package facts

import (
	"strings"

	"agentk/platform/mutant"
)

// Refining over the failing operations (issue 35, sparse sampling): at 1 in
// 32 a minute of a service holds a few dozen spans, most of them of
// operations that never fail (its database and cache calls), and the
// refinement's bound (RefineOnset) then lies tens of seconds before the
// first failing span: a release whose first failure came 20 s after its
// marker read as deployed after the onset. When operations left their own
// baselines in the onset's bucket, in the onset's signal
// (OperationDepartures), the bound is taken over their spans alone, and
// kept only when no span of the service at all was off between the bucket's
// start and it: an earlier failure anywhere keeps the service's bound.

// DepartedAt are the operations whose departure in on's signal begins where
// on (the service's onset, before refinement) does.
func DepartedAt(on Onset, deps []OpDeparture) []string {
	var out []string
	for _, d := range deps {
		if on.At != nil && d.Onset().At != nil && d.Onset().At.Equal(*on.At) && d.Onset().Signal == on.Signal {
			out = append(out, d.Op())
		}
	}
	return out
}

// RefineByOps is RefineOnset over the spans of ops when that is later than
// over every span and no span of the service was off from on.At to it;
// otherwise RefineOnset over every span. An onset an operation or a slow
// dependency's calls placed is refined over their spans already (tools'
// refineQuery).
//
// Like RefineOnset it is taken over spans and over requests (PerTrace of the
// operations' spans, and of every span for the service's bound), and the
// earlier of the two is kept.
func RefineByOps(on Onset, marks []SpanMark, ops []string) Onset {
	spans := refineByOps(on, marks, ops, refineSpans)
	if mutant.Off(mutant.SandboxRefinePerTrace) {
		return spans
	}
	return earlierOnset(spans, refineByOps(on, marks, ops, refineRequests))
}

// refineByOps is RefineByOps with refine as the refinement.
func refineByOps(on Onset, marks []SpanMark, ops []string, refine func(Onset, []SpanMark) Onset) Onset {
	all := refine(on, marks)
	if len(ops) == 0 || on.Operation != "" || on.Dependency != "" || on.At == nil {
		return all
	}
	var sel []SpanMark
	for _, m := range marks {
		if sharesOp(m, ops) {
			sel = append(sel, m)
		}
	}
	by := refine(on, sel)
	if by.At == nil || all.At == nil || !by.At.After(*all.At) {
		return all
	}
	if !mutant.Off(mutant.SandboxRefineOpsCap) {
		for _, m := range marks {
			if m.Off && !m.At.Before(*on.At) && m.At.Before(*by.At) {
				return all
			}
		}
	}
	by.Refined += " (over the spans of " + strings.Join(ops, ", ") + ", the operations that left their baselines in the onset's bucket; no span of the service was off before it)"
	return by
}
