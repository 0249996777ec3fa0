package tools_test

import (
	"encoding/json"
	"testing"

	"agentk/contracts/incident"
	"agentk/services/sandbox/internal/tools"

	"github.com/stretchr/testify/require"
)

// brokerOverview runs service_overview on the head-sampled twin of
// heldout4's RabbitMQ memory-alarm trap (e2e/incidents-heldout4-twins) after
// edit changed store-api's publish spans.
func brokerOverview(t *testing.T, edit func(incident.Span) incident.Span) tools.Output {
	t.Helper()
	return editedOverview(t, "incidents-heldout4-twins/ho4-trap-broker-memory-alarm-store-api", func(spans []incident.Span) []incident.Span {
		for i, s := range spans {
			if s.Service() == "store-api" && s.Name == "publish store.purchases" {
				spans[i] = edit(s)
			}
		}
		return spans
	})
}

// TestFailingBrokerOfProducerSpans: RabbitMQ's memory alarm fails store-api's
// publishes (producer spans, kind 4, server.address the broker) with
// error.type Bunny::ConnectionClosedError and no HTTP or gRPC status, three
// minutes after an unrelated release. The broker is a failing dependency
// and the failure its own (dependency_faults), as recorded and with the
// publishes written as Redis client spans (kind 3, db.system.name redis,
// Redis::CommandError "OOM command not allowed"). Kills mutant
// sandbox.producer_calls (the first case: only client spans were read as
// calls to a peer); facts' TestDependencyFaultsWithoutStatus judges the
// failures one by one.
func TestFailingBrokerOfProducerSpans(t *testing.T) {
	t.Parallel()
	const broker = "rabbitmq.lanternfall.internal"
	asRecorded := brokerOverview(t, func(s incident.Span) incident.Span { return s })
	require.Contains(t, asRecorded.Facts.FailingDependencies, broker, asRecorded.Compact)
	require.Contains(t, asRecorded.Facts.DependencyFaults, broker, asRecorded.Compact)

	redis := brokerOverview(t, func(s incident.Span) incident.Span {
		s.Kind, s.Name = 3, "XADD"
		s.Attributes = map[string]json.RawMessage{"db.system.name": json.RawMessage(`"redis"`), "db.operation.name": json.RawMessage(`"XADD"`),
			"server.address": json.RawMessage(`"` + broker + `"`), "server.port": json.RawMessage(`6379`)}
		if s.HasError {
			s.Attributes["error.type"] = json.RawMessage(`"Redis::CommandError"`)
			s.StatusMessage = "OOM command not allowed when used memory > 'maxmemory'."
		}
		return s
	})
	require.Contains(t, redis.Facts.FailingDependencies, broker, redis.Compact)
	require.Contains(t, redis.Facts.DependencyFaults, broker, redis.Compact)
}
