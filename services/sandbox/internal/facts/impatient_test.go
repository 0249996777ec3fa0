package facts_test

import (
	"fmt"
	"testing"
	"time"

	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"

	"github.com/stretchr/testify/require"
)

// callRows is one trace of svc: an entry span, a client span to the peer
// lasting callMs (failed when failed) and the peer's server span beneath it
// lasting peerMs (failed when peerErr); peerMs < 0 leaves the peer's span
// out (the peer never saw the call). at is the trace's start.
func callRows(tid string, at time.Time, callMs float64, failed bool, peerMs float64, peerErr bool) []signoz.RawRow {
	row := func(id, parent, svc, kind string, start, dur float64, err bool) signoz.RawRow {
		return signoz.RawRow{Timestamp: at.Add(time.Duration(start * float64(time.Millisecond))), Data: map[string]any{
			"trace_id": tid, "span_id": id, "parent_span_id": parent, "service.name": svc, "has_error": err,
			"duration_nano": dur * 1e6, "kind_string": kind}}
	}
	rows := []signoz.RawRow{
		row(tid+"e", "", "slots", "Server", 0, callMs+20, failed),
		row(tid+"c", tid+"e", "slots", "Client", 5, callMs, failed),
	}
	if peerMs >= 0 {
		rows = append(rows, row(tid+"p", tid+"c", "routing", "Server", 6, peerMs, peerErr))
	}
	return rows
}

// impatientRows: since the onset, failed calls of 350 ms that the peer
// answered after 500 ms (answered, the peer's span is left out when not);
// before it, waited answered calls of waitedMs.
func impatientRows(answered bool, waitedMs float64) []signoz.RawRow {
	var rows []signoz.RawRow
	peerMs := 500.0
	if !answered {
		peerMs = -1
	}
	for i := range 10 {
		rows = append(rows, callRows(fmt.Sprint("s", i), t0.Add(time.Duration(i)*time.Second), 350, true, peerMs, false)...)
		rows = append(rows, callRows(fmt.Sprint("b", i), t0.Add(-time.Hour+time.Duration(i)*time.Second), waitedMs, false, waitedMs-10, false)...)
	}
	return rows
}

// TestImpatientPeerMustHaveWaitedBefore: a service whose failed calls the
// peer answered, and that waited 3 s on it before, gave up sooner than it
// used to (the peer is not failing); one that never waited longer than
// 340 ms (an unchanged timeout on a peer that slowed) or whose failed
// calls the peer never saw leaves the peer failing. Kills mutant
// sandbox.impatient_waited (the second case).
func TestImpatientPeerMustHaveWaitedBefore(t *testing.T) {
	t.Parallel()
	peers := []string{"routing"}
	require.Equal(t, peers, facts.ImpatientPeers(impatientRows(true, 3000), "slots", t0, peers))
	require.Empty(t, facts.ImpatientPeers(impatientRows(true, 340), "slots", t0, peers), "an unchanged timeout: it never waited longer")
	require.Empty(t, facts.ImpatientPeers(impatientRows(true, 500), "slots", t0, peers), "waited under 1.5x the longest answered failed call")
	require.Empty(t, facts.ImpatientPeers(impatientRows(false, 3000), "slots", t0, peers), "the peer never saw the failed calls")
	require.Empty(t, facts.ImpatientPeers(impatientRows(true, 3000), "slots", t0, []string{"routing.internal"}), "a peer named by a host has no span of its own")
}
