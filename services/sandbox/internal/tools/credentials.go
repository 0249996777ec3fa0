package tools

import (
	"time"

	"agentk/contracts"
	"agentk/services/sandbox/internal/facts"
)

// callsSinceRelease measures contracts.Facts.CallsSinceRelease
// (facts.CallsSinceRelease) for the peers of refused, from the running
// version's first served minute, each minute with the other versions'
// entry spans (st.versions). Nil when the release was not measured or the
// versions could not be read; a running version that served every
// recorded minute has its minutes from the recording's start (the gate
// keeps those after the ledger's start).
func callsSinceRelease(st overviewState, refused []string) []contracts.CallsSinceRelease {
	r := st.release
	if r == nil || len(refused) == 0 || st.versions == nil {
		return nil
	}
	return facts.CallsSinceRelease(st.peers, refused, r.FirstSeen, facts.MinuteTotals(st.versions, r.Version))
}

// callsBeforeSlowing measures contracts.Facts.CallsBeforeSlowing
// (facts.CallsBeforeSlowing) for the peers of slow, from the running
// version's first served minute to the onset. Nil when the release, the
// versions or the onset were not measured.
func callsBeforeSlowing(st overviewState, slow []string, onset *time.Time) []contracts.CallsSinceRelease {
	r := st.release
	if r == nil || len(slow) == 0 || st.versions == nil || onset == nil {
		return nil
	}
	return facts.CallsBeforeSlowing(st.peers, slow, r.FirstSeen, *onset, facts.MinuteTotals(st.versions, r.Version))
}
