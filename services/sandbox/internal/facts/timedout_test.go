package facts_test

import (
	"testing"
	"time"

	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"

	"github.com/stretchr/testify/require"
)

// TestTimedOutPeers: a failing dependency is named timed out when most of
// the service's failed calls to it since the onset, and at least
// MinFaultCalls of them, say the caller gave up waiting (an error.type or
// status message naming a timeout or a deadline): ledger-sync's "upstream
// timed out after retries" to ledger.internal, Go's Client.Timeout. The
// peer's own 503s, refused credentials, a minority of timeouts, too few
// calls, calls before the onset, another service's calls or another peer's
// are not. Kills mutant sandbox.timed_out_peers.
func TestTimedOutPeers(t *testing.T) {
	t.Parallel()
	onset := time.Date(2026, 8, 3, 8, 58, 0, 0, time.UTC)
	call := func(svc, peer, errType, msg string, status float64, at time.Time) signoz.RawRow {
		attrs := map[string]any{"server.address": peer}
		if errType != "" {
			attrs["error.type"] = errType
		}
		if status > 0 {
			attrs["http.response.status_code"] = status
		}
		d := map[string]any{"kind_string": "Client", "has_error": true, "status_message": msg,
			"resources_string": map[string]any{"service.name": svc}, "attributes_string": attrs}
		return signoz.RawRow{Timestamp: at, Data: d}
	}
	after := onset.Add(time.Minute)
	n := func(k int, r signoz.RawRow) []signoz.RawRow {
		out := make([]signoz.RawRow, k)
		for i := range out {
			out[i] = r
		}
		return out
	}
	ledger := []string{"ledger.internal"}
	timedOut := call("ledger-sync", "ledger.internal", "", "upstream timed out after retries", 0, after)
	tests := []struct {
		name string
		rows []signoz.RawRow
		want []string
	}{
		{"the client's give-up after retries (the ledger outage)", n(3, timedOut), ledger},
		{"Go's Client.Timeout in error.type and message", n(4, call("ledger-sync", "ledger.internal", "*url.Error", "context deadline exceeded (Client.Timeout exceeded while awaiting headers)", 0, after)), ledger},
		{"most, not all, timed out", append(n(3, timedOut), call("ledger-sync", "ledger.internal", "", "upstream answered 503", 503, after)), ledger},
		{"the peer's own 503s", n(3, call("ledger-sync", "ledger.internal", "", "Service Unavailable", 503, after)), nil},
		{"refused credentials", n(3, call("ledger-sync", "ledger.internal", "", "401 Unauthorized", 401, after)), nil},
		{"half timed out", append(n(2, timedOut), n(2, call("ledger-sync", "ledger.internal", "", "401 Unauthorized", 401, after))...), nil},
		{"too few calls", n(2, timedOut), nil},
		{"before the onset", n(3, call("ledger-sync", "ledger.internal", "", "upstream timed out after retries", 0, onset.Add(-time.Minute))), nil},
		{"another service's calls", n(3, call("ledger-export", "ledger.internal", "", "upstream timed out after retries", 0, after)), nil},
		{"another peer", n(3, call("ledger-sync", "audit.internal", "", "upstream timed out after retries", 0, after)), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, facts.TimedOutPeers(tc.rows, "ledger-sync", onset, ledger, []string{"server.address", "net.peer.name"}))
		})
	}
}
