package tools

import (
	"fmt"
	"strings"

	"agentk/contracts"
	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"
)

// PoolKeys are the span attributes that mark a connection-pool span
// (facts.PoolKeys).
var PoolKeys = facts.PoolKeys

// poolFilter selects the service's spans that carry any of PoolKeys. The
// entry spans are left out: a server span that merely names its pool is not
// a wait for a connection.
func poolFilter(svcFilter string) string {
	var has []string
	for _, k := range PoolKeys {
		has = append(has, k+" EXISTS")
	}
	return and(svcFilter, "kind NOT IN (2, 5)", "("+strings.Join(has, " OR ")+")")
}

// poolWaits measures contracts.PoolWaits (facts.PoolWaits) from the pool
// spans' per-minute series and the entry spans' errors by version; nil when
// the service wrote no pool span in the window.
func poolWaits(all, failing signoz.Response, entryErrs []versionErrors, on Onset) (*contracts.PoolWaits, error) {
	p, err := facts.PoolWaits(all, failing, entryErrs, *on.At, on.BaselineFrom)
	return p, badResponse(err)
}

// poolLine says what the pool spans showed, for the model and the human.
func poolLine(p *contracts.PoolWaits) string {
	s := fmt.Sprintf("connection-pool spans (%s): since the onset %d, %d failed; baseline %d, %d failed; failing entry spans since the onset %d",
		strings.Join(PoolKeys, " | "), p.Spans, p.Failed, p.BaselineSpans, p.BaselineFailed, p.EntryErrors)
	if p.P95Ms != nil {
		s += "; wait p95_ms since the onset " + fmtF(*p.P95Ms)
	}
	if p.BaselineP95Ms != nil {
		s += ", baseline " + fmtF(*p.BaselineP95Ms)
	}
	return s
}
