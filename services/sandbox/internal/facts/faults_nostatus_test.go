package facts_test

import (
	"testing"
	"time"

	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"

	"github.com/stretchr/testify/require"
)

// TestDependencyFaultsWithoutStatus: a failed call that carries no HTTP or
// gRPC status (a message published to a broker, a Redis or SMTP command) is
// the peer's own failure when its error.type (semantic conventions 1.26+)
// or status message says the peer failed: a connection it closed, reset or
// refused, its unavailability, its exhausted resources or throttling. It is
// not when the caller gave up waiting (its own timeout, which a release
// sets), when its credentials or its request were refused, or when nothing
// says which (a bare RuntimeError). Producer spans (kind 4) are calls to the
// broker as client spans are to their host; consumer spans are not calls
// out. A status, where there is one, decides. Kills mutant
// sandbox.peer_error_type (every "peer" case).
func TestDependencyFaultsWithoutStatus(t *testing.T) {
	t.Parallel()
	onset := time.Date(2026, 12, 5, 18, 24, 0, 0, time.UTC)
	after := onset.Add(time.Minute)
	call := func(kind, errType, msg string, extra map[string]any) signoz.RawRow {
		attrs := map[string]any{"server.address": "broker"}
		if errType != "" {
			attrs["error.type"] = errType
		}
		for k, v := range extra {
			attrs[k] = v
		}
		d := map[string]any{"kind_string": kind, "has_error": true, "status_message": msg,
			"resources_string": map[string]any{"service.name": "store-api"}, "attributes_string": attrs}
		return signoz.RawRow{Timestamp: after, Data: d}
	}
	peer := []string{"broker"}
	tests := []struct {
		name, kind, errType, msg string
		extra                    map[string]any
		want                     []string
	}{
		{"RabbitMQ's memory alarm closes the publisher's connection", "Producer", "Bunny::ConnectionClosedError", "connection.blocked: low on memory (resource alarm)", nil, peer},
		{"a producer span under its enum name", "SPAN_KIND_PRODUCER", "Bunny::ConnectionClosedError", "", nil, peer},
		{"Kafka: no leader for the partition", "Producer", "Kafka::DeliveryFailed", "Failed to send messages to store.purchases/3: leader not available", nil, peer},
		{"SQS: ServiceUnavailable", "Producer", "Aws::SQS::Errors::ServiceUnavailable", "", nil, peer},
		{"SQS: throttled", "Producer", "Aws::SQS::Errors::RequestThrottled", "Request is throttled.", nil, peer},
		{"Redis out of memory (client span, db.*)", "Client", "Redis::CommandError", "OOM command not allowed when used memory > 'maxmemory'.", map[string]any{"db.system.name": "redis"}, peer},
		{"Redis still loading its dataset", "Client", "Redis::CommandError", "LOADING Redis is loading the dataset in memory", nil, peer},
		{"the SMTP relay drops connections", "Client", "SMTPServerDisconnected", "SMTPServerDisconnected: Connection unexpectedly closed", nil, peer},
		{"connection refused, status message only", "Client", "", "dial tcp 10.0.4.7:5672: connect: connection refused", nil, peer},
		{"gRPC's RESOURCE_EXHAUSTED named in error.type only", "Client", "RESOURCE_EXHAUSTED", "", nil, peer},
		{"Azure SQL 40613: the database is not currently available (SqlClient)", "Client", "40613", "Database 'KestrelWarehouse' on server 'sql-kestrel-prod' is not currently available. Please retry the connection later.", map[string]any{"db.response.status_code": "40613"}, peer},
		{"SQL Server 207: a column the statement names does not exist (the request as sent)", "Client", "207", "Invalid column name 'CutoffUtc'.", map[string]any{"db.response.status_code": "207"}, nil},
		{"the caller's own timeout", "Producer", "Timeout::Error", "execution expired", nil, nil},
		{"a delivery that timed out at the producer", "Producer", "Kafka::DeliveryFailed", "Local: Message timed out", nil, nil},
		{"a deadline the caller set on an unavailable peer", "Client", "ServiceUnavailable", "context deadline exceeded", nil, nil},
		{"refused credentials", "Producer", "Bunny::AuthenticationFailureError", "ACCESS_REFUSED - Login was refused using authentication mechanism PLAIN", nil, nil},
		{"Redis: wrong password", "Client", "Redis::CommandError", "WRONGPASS invalid username-password pair or user is disabled.", nil, nil},
		{"an exchange that does not exist (the request as sent)", "Producer", "Bunny::ChannelAlreadyClosed", "NOT_FOUND - no exchange 'store.purchase' in vhost '/'", nil, nil},
		{"a TLS handshake the caller set up", "Client", "OpenSSL::SSL::SSLError", "SSL_connect returned=1 errno=0 state=error: certificate verify failed", nil, nil},
		{"an error that says nothing of the peer", "Producer", "RuntimeError", "can't modify frozen String", nil, nil},
		{"a status decides where there is one (404)", "Client", "Faraday::ConnectionFailed", "", map[string]any{"http.response.status_code": 404.0}, nil},
		{"consumer spans are no calls out", "Consumer", "Bunny::ConnectionClosedError", "connection.blocked", nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rows := []signoz.RawRow{call(tc.kind, tc.errType, tc.msg, tc.extra), call(tc.kind, tc.errType, tc.msg, tc.extra), call(tc.kind, tc.errType, tc.msg, tc.extra)}
			require.Equal(t, tc.want, facts.DependencyFaults(rows, "store-api", onset, peer, []string{"server.address", "net.peer.name"}))
		})
	}
}

// TestRetriedOwnFaultsOfProducerSpans: a retried broker whose publishes
// fail with its own error (no status) is a retried fault; one whose
// publishes the caller timed out on is not.
func TestRetriedOwnFaultsOfProducerSpans(t *testing.T) {
	t.Parallel()
	onset := time.Date(2026, 12, 5, 18, 24, 0, 0, time.UTC)
	rows := func(errType string) []signoz.RawRow {
		d := map[string]any{"kind_string": "Producer", "has_error": true, "service.name": "store-api", "server.address": "broker", "error.type": errType}
		r := signoz.RawRow{Timestamp: onset.Add(time.Minute), Data: d}
		return []signoz.RawRow{r, r, r, r}
	}
	keys := []string{"server.address", "net.peer.name"}
	require.Equal(t, []string{"broker"}, facts.RetriedOwnFaults(rows("Bunny::ConnectionClosedError"), "store-api", onset, []string{"broker"}, keys))
	require.Empty(t, facts.RetriedOwnFaults(rows("Timeout::Error"), "store-api", onset, []string{"broker"}, keys))
}
