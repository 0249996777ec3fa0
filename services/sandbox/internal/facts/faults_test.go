package facts_test

import (
	"testing"
	"time"

	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"

	"github.com/stretchr/testify/require"
)

// TestDependencyFaults: a failing dependency is named when most of the
// service's failed calls to it since the onset carry the peer's own failure
// status (HTTP 5xx or 429, gRPC UNAVAILABLE…), under either peer key and
// either HTTP convention; refusals of the request as sent (401, gRPC
// UNAUTHENTICATED), calls with no status (a database's refused password),
// calls before the onset, other services' and server spans are not.
func TestDependencyFaults(t *testing.T) {
	t.Parallel()
	onset := time.Date(2026, 3, 20, 2, 30, 0, 0, time.UTC)
	call := func(svc, kind, peerKey, peer string, at time.Time, failed bool, status map[string]any) signoz.RawRow {
		d := map[string]any{"kind_string": kind, "has_error": failed, "resources_string": map[string]any{"service.name": svc}}
		attrs := map[string]any{peerKey: peer}
		for k, v := range status {
			attrs[k] = v
		}
		d["attributes_string"] = attrs
		return signoz.RawRow{Timestamp: at, Data: d}
	}
	after := onset.Add(time.Minute)
	repeat := func(n int, r signoz.RawRow) []signoz.RawRow {
		out := make([]signoz.RawRow, n)
		for i := range out {
			out[i] = r
		}
		return out
	}
	http := func(code float64) map[string]any { return map[string]any{"http.response.status_code": code} }
	tests := []struct {
		name string
		rows []signoz.RawRow
		want []string
	}{
		{"503s from the partner", repeat(4, call("route-planner", "Client", "server.address", "api.partner", after, true, http(503))), []string{"api.partner"}},
		{"429s under the older convention and net.peer.name", repeat(3, call("route-planner", "Client", "net.peer.name", "api.partner", after, true, map[string]any{"http.status_code": 429.0})), []string{"api.partner"}},
		{"gRPC UNAVAILABLE", repeat(3, call("route-planner", "Client", "server.address", "api.partner", after, true, map[string]any{"rpc.grpc.status_code": 14.0})), []string{"api.partner"}},
		{"gRPC UNAUTHENTICATED: refused as sent", repeat(3, call("route-planner", "Client", "server.address", "api.partner", after, true, map[string]any{"rpc.grpc.status_code": 16.0})), nil},
		{"401s: refused credentials", repeat(5, call("route-planner", "Client", "server.address", "api.partner", after, true, http(401))), nil},
		{"no status: a database's refused password", repeat(5, call("route-planner", "Client", "server.address", "api.partner", after, true, nil)), nil},
		{"two faults: too few to judge", repeat(2, call("route-planner", "Client", "server.address", "api.partner", after, true, http(503))), nil},
		{"faults before the onset", repeat(4, call("route-planner", "Client", "server.address", "api.partner", onset.Add(-time.Minute), true, http(503))), nil},
		{"another service's calls", repeat(4, call("web-bff", "Client", "server.address", "api.partner", after, true, http(503))), nil},
		{"server spans", repeat(4, call("route-planner", "Server", "server.address", "api.partner", after, true, http(503))), nil},
		{"a peer that is not a failing dependency", repeat(4, call("route-planner", "Client", "server.address", "api.other", after, true, http(503))), nil},
		{"half the failed calls: not most", append(repeat(2, call("route-planner", "Client", "server.address", "api.partner", after, true, http(503))),
			repeat(2, call("route-planner", "Client", "server.address", "api.partner", after, true, nil))...), nil},
		{"succeeded calls do not count", append(repeat(3, call("route-planner", "Client", "server.address", "api.partner", after, true, http(503))),
			repeat(9, call("route-planner", "Client", "server.address", "api.partner", after, false, nil))...), []string{"api.partner"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := facts.DependencyFaults(tc.rows, "route-planner", onset, []string{"api.partner"}, []string{"server.address", "net.peer.name"})
			require.Equal(t, tc.want, got)
		})
	}
	require.Equal(t, []string{"b"}, facts.WithinPeers([]string{"a", "b"}, []string{"b", "c"}))
}

// TestRetriedOwnFaults: a retried peer's failed calls are its own only when
// the caller did not time out on them (context deadline exceeded with a
// 504 the client wrote, error.type timeout).
func TestRetriedOwnFaults(t *testing.T) {
	t.Parallel()
	onset := time.Date(2026, 12, 4, 16, 35, 0, 0, time.UTC)
	row := func(status float64, msg, errType string) signoz.RawRow {
		d := map[string]any{"service.name": "booking-gateway", "kind_string": "Client", "has_error": true,
			"server.address": "carrier", "http.response.status_code": status, "status_message": msg}
		if errType != "" {
			d["error.type"] = errType
		}
		return signoz.RawRow{Timestamp: onset.Add(time.Minute), Data: d}
	}
	answered := []signoz.RawRow{row(503, "503 Service Unavailable", ""), row(503, "503 Service Unavailable", ""), row(503, "", "503")}
	timedOut := []signoz.RawRow{row(504, "context deadline exceeded", ""), row(504, "", "timeout"), row(504, "Read timed out", "")}
	keys := []string{"server.address"}
	require.Equal(t, []string{"carrier"}, facts.RetriedOwnFaults(answered, "booking-gateway", onset, []string{"carrier"}, keys))
	require.Empty(t, facts.RetriedOwnFaults(timedOut, "booking-gateway", onset, []string{"carrier"}, keys))
	require.Equal(t, []string{"carrier"}, facts.DependencyFaults(timedOut, "booking-gateway", onset, []string{"carrier"}, keys), "the failing dependencies' judgment is unchanged")
}
