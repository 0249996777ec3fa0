package facts_test

import (
	"testing"
	"time"

	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"

	"github.com/stretchr/testify/require"
)

// TestDependencyFaultsOfMicrometerCalls: a call of Micrometer's HTTP client
// observation (Spring's RestClient, RestTemplate, WebClient) names its peer
// by client.name and its answer by status (a string) and outcome, with no
// OpenTelemetry status: a 503 or 429 under status, or outcome SERVER_ERROR
// without a status, is the peer's own failure; a 4xx refusal or a status
// that is no HTTP status is not. An OpenTelemetry status, where there is
// one, decides. Kills mutant sandbox.micrometer_calls (every "peer" case).
func TestDependencyFaultsOfMicrometerCalls(t *testing.T) {
	t.Parallel()
	onset := time.Date(2026, 12, 3, 10, 21, 0, 0, time.UTC)
	call := func(attrs map[string]any, msg string) signoz.RawRow {
		a := map[string]any{"client.name": "clearing.example", "method": "POST", "uri": "/rt1/v2/credit-transfers"}
		for k, v := range attrs {
			a[k] = v
		}
		d := map[string]any{"kind_string": "Client", "has_error": true, "status_message": msg,
			"resources_string": map[string]any{"service.name": "payments-gateway"}, "attributes_string": a}
		return signoz.RawRow{Timestamp: onset.Add(time.Minute), Data: d}
	}
	peer := []string{"clearing.example"}
	tests := []struct {
		name  string
		attrs map[string]any
		msg   string
		want  []string
	}{
		{"503 under Micrometer's status", map[string]any{"status": "503", "outcome": "SERVER_ERROR"}, "503 Service Unavailable", peer},
		{"429 under Micrometer's status", map[string]any{"status": "429", "outcome": "CLIENT_ERROR"}, "", peer},
		{"outcome SERVER_ERROR without a status", map[string]any{"outcome": "SERVER_ERROR"}, "", peer},
		{"a refusal (400)", map[string]any{"status": "400", "outcome": "CLIENT_ERROR"}, "400 Bad Request", nil},
		{"no response: status CLIENT_ERROR, the caller's timeout", map[string]any{"status": "CLIENT_ERROR", "outcome": "UNKNOWN"}, "I/O error: Read timed out", nil},
		{"an OpenTelemetry status decides over Micrometer's", map[string]any{"http.response.status_code": 400.0, "status": "503"}, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rows := []signoz.RawRow{call(tt.attrs, tt.msg), call(tt.attrs, tt.msg), call(tt.attrs, tt.msg)}
			keys := []string{"server.address", "net.peer.name", "client.name"}
			require.Equal(t, tt.want, facts.DependencyFaults(rows, "payments-gateway", onset, peer, keys))
		})
	}
}
