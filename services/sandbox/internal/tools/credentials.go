package tools

import (
	"agentk/contracts"
	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"
)

// callsSinceRelease measures contracts.Facts.CallsSinceRelease
// (facts.CallsSinceRelease) for the peers of refused, from the running
// version's first served minute, each minute with the other versions'
// entry spans (versions, the overview's entry spans by service.version).
// Nil when the release was not measured or versions cannot be read; a
// running version that served every recorded minute has its minutes from
// the recording's start (the gate keeps those after the ledger's start).
func callsSinceRelease(st overviewState, versions signoz.Response, refused []string) []contracts.CallsSinceRelease {
	r := st.release
	if r == nil || len(refused) == 0 {
		return nil
	}
	counts, err := facts.VersionCounts(versions)
	if err != nil {
		return nil
	}
	return facts.CallsSinceRelease(st.peers, refused, r.FirstSeen, facts.MinuteTotals(counts, r.Version))
}
