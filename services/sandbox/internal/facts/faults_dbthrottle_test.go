package facts_test

import (
	"testing"
	"time"

	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"

	"github.com/stretchr/testify/require"
)

// TestDependencyFaultsDatabaseThrottle: a call the Azure SDK failed with
// Cosmos DB's 429 (its status in db.cosmosdb.status_code, no HTTP
// attribute; the status message "Request rate is large") is the database's
// own failure, as a retried fault too (the SDK retried it inside the span),
// and a Cosmos DB call that failed for the caller's own request is not.
// e2e/incidents-heldout12's pr12-trap-cosmos-ru-regrade-grading-svc. Kills
// mutant sandbox.database_throttle (every "peer" case).
func TestDependencyFaultsDatabaseThrottle(t *testing.T) {
	t.Parallel()
	onset := time.Date(2026, 12, 4, 7, 38, 0, 0, time.UTC)
	call := func(msg string, status float64) signoz.RawRow {
		attrs := map[string]any{"net.peer.name": "cosmos", "db.system": "cosmosdb", "az.namespace": "Microsoft.DocumentDB",
			"db.cosmosdb.status_code": status, "db.cosmosdb.retry_count": 9.0}
		d := map[string]any{"kind_string": "Client", "has_error": true, "status_message": msg,
			"resources_string": map[string]any{"service.name": "grading-svc"}, "attributes_string": attrs}
		return signoz.RawRow{Timestamp: onset.Add(time.Minute), Data: d}
	}
	peer := []string{"cosmos"}
	keys := []string{"server.address", "net.peer.name"}
	for _, tc := range []struct {
		name, msg string
		status    float64
		want      []string
	}{
		{"Cosmos DB 429/3200, the SDK's message", "Request rate is large. More Request Units may be needed, so no changes were made. Please retry this request later.", 429, peer},
		{"the exception's code name", "CosmosException: RequestRateTooLarge (429)", 429, peer},
		{"a conflict the caller's write made (409)", "Entity with the specified id already exists in the system.", 409, nil},
		{"a partition key the caller got wrong (400)", "PartitionKey extracted from document doesn't match the one specified in the header", 400, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rows := []signoz.RawRow{call(tc.msg, tc.status), call(tc.msg, tc.status), call(tc.msg, tc.status)}
			require.Equal(t, tc.want, facts.DependencyFaults(rows, "grading-svc", onset, peer, keys))
			require.Equal(t, tc.want, facts.RetriedOwnFaults(rows, "grading-svc", onset, peer, keys))
		})
	}
}
