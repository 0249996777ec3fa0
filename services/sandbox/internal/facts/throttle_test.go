package facts_test

import (
	"fmt"
	"testing"
	"time"

	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"

	"github.com/stretchr/testify/require"
)

// TestDependencyFaultsThrottled: a call answered with an HTTP 4xx is the
// peer's own failure when it, or the failed outbound span it was sent under,
// says the peer throttled it. The AWS SDK v3 instrumentation's span
// (rpc.system aws-api, no host, HTTP 400 and the throttling exception's
// message) has the node http instrumentation's span for each attempt under
// it, which names DynamoDB's host and carries only the 400
// (lm7-twin-http-ddb-throttle-after-rollout-entitlements-api, heldout7).
// A 400 under an SDK span that says the request was invalid, a 401, a
// throttled parent that is not a failed call out, or a 4xx whose parent is
// not among the rows stays the caller's. Kills mutant
// sandbox.throttled_calls (every "peer" case).
func TestDependencyFaultsThrottled(t *testing.T) {
	t.Parallel()
	onset := time.Date(2026, 12, 7, 14, 5, 0, 0, time.UTC)
	after := onset.Add(time.Minute)
	const host = "dynamodb.eu-west-1.amazonaws.com"
	row := func(id, parent, kind string, failed bool, msg string, attrs map[string]any) signoz.RawRow {
		d := map[string]any{"span_id": id, "parent_span_id": parent, "kind_string": kind, "has_error": failed,
			"status_message": msg, "resources_string": map[string]any{"service.name": "entitlements-api"}, "attributes_string": attrs}
		return signoz.RawRow{Timestamp: after, Data: d}
	}
	sdk := func(id, msg string) signoz.RawRow {
		return row(id, "srv", "Client", true, msg, map[string]any{"rpc.system": "aws-api", "rpc.service": "DynamoDB",
			"rpc.method": "GetItem", "http.status_code": 400.0})
	}
	attempt := func(id, parent string, status float64, msg string) signoz.RawRow {
		return row(id, parent, "Client", true, msg, map[string]any{"net.peer.name": host, "http.method": "POST", "http.status_code": status})
	}
	const pte = "The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API."
	peer := []string{host}
	tests := []struct {
		name  string
		build func(i int) []signoz.RawRow
		want  []string
	}{
		{"attempts under a ProvisionedThroughputExceededException", func(i int) []signoz.RawRow {
			p := fmt.Sprintf("sdk%d", i)
			return []signoz.RawRow{sdk(p, pte), attempt(p+"a", p, 400, "400"), attempt(p+"b", p, 400, "400")}
		}, peer},
		{"attempts under a ThrottlingException", func(i int) []signoz.RawRow {
			p := fmt.Sprintf("sdk%d", i)
			return []signoz.RawRow{sdk(p, "Rate of requests exceeds the allowed throughput."), attempt(p+"a", p, 400, "400")}
		}, peer},
		{"a 400 that says it was throttled itself", func(i int) []signoz.RawRow {
			return []signoz.RawRow{attempt(fmt.Sprintf("a%d", i), "", 400, "ThrottlingException: Rate exceeded")}
		}, peer},
		{"attempts under a ValidationException", func(i int) []signoz.RawRow {
			p := fmt.Sprintf("sdk%d", i)
			return []signoz.RawRow{sdk(p, "One or more parameter values were invalid: Missing the key id in the item"), attempt(p+"a", p, 400, "400")}
		}, nil},
		{"a 401 under an SDK span that says nothing of throttling", func(i int) []signoz.RawRow {
			p := fmt.Sprintf("sdk%d", i)
			return []signoz.RawRow{sdk(p, "The security token included in the request is expired"), attempt(p+"a", p, 401, "401")}
		}, nil},
		{"a throttled parent that is a server span, not a call out", func(i int) []signoz.RawRow {
			p := fmt.Sprintf("srv%d", i)
			return []signoz.RawRow{row(p, "", "Server", true, "request throttled", nil), attempt(p+"a", p, 400, "400")}
		}, nil},
		{"a throttled parent that did not fail", func(i int) []signoz.RawRow {
			p := fmt.Sprintf("sdk%d", i)
			ok := sdk(p, pte)
			ok.Data["has_error"] = false
			return []signoz.RawRow{ok, attempt(p+"a", p, 400, "400")}
		}, nil},
		{"a 400 whose parent is not among the rows", func(i int) []signoz.RawRow {
			return []signoz.RawRow{attempt(fmt.Sprintf("a%d", i), "elsewhere", 400, "400")}
		}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var rows []signoz.RawRow
			for i := range 3 {
				rows = append(rows, tc.build(i)...)
			}
			require.Equal(t, tc.want, facts.DependencyFaults(rows, "entitlements-api", onset, peer, []string{"server.address", "net.peer.name"}))
		})
	}
}
