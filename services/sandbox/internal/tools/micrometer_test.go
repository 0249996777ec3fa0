package tools_test

import (
	"encoding/json"
	"testing"

	"agentk/contracts/incident"
	"agentk/services/sandbox/internal/tools"

	"github.com/stretchr/testify/require"
)

// micrometerOverview runs service_overview on a twin of heldout5
// (e2e/incidents-heldout5-twins) after edit changed every span of svc.
func micrometerOverview(t *testing.T, id, svc string, edit func(incident.Span) incident.Span) tools.Output {
	t.Helper()
	return editedOverview(t, "incidents-heldout5-twins/"+id, func(spans []incident.Span) []incident.Span {
		for i, s := range spans {
			if s.Service() == svc {
				spans[i] = edit(s)
			}
		}
		return spans
	})
}

// without returns a span's edit with the attribute key removed.
func without(key string) func(incident.Span) incident.Span {
	return func(s incident.Span) incident.Span {
		attrs := map[string]json.RawMessage{}
		for k, v := range s.Attributes {
			if k != key {
				attrs[k] = v
			}
		}
		s.Attributes = attrs
		return s
	}
}

// TestMicrometerAndJDBCPeers: Spring's RestClient spans name the clearing
// house by client.name and its answer by status "503" (no server.address,
// no OpenTelemetry status): it is a failing dependency with its own failure;
// datasource-micrometer's JDBC spans name the database only by
// jdbc.datasource.name, and the batch's locks make it a slow dependency of
// loans-api, and the Hikari timeouts on its connection spans (no pool
// attribute) a pool that ran dry. Without those attributes none is found
// (the old reading). Kills mutants sandbox.micrometer_calls (the first two)
// and sandbox.pool_texts (the third).
func TestMicrometerAndJDBCPeers(t *testing.T) {
	t.Parallel()
	const clearing = "sepa-inst.clearing.example"
	keep := func(s incident.Span) incident.Span { return s }
	pg := micrometerOverview(t, "fh5-twin-clearing-outage-after-release-payments-gateway", "payments-gateway", keep)
	require.Contains(t, pg.Facts.FailingDependencies, clearing, pg.Compact)
	require.Contains(t, pg.Facts.DependencyFaults, clearing, pg.Compact)
	pgOld := micrometerOverview(t, "fh5-twin-clearing-outage-after-release-payments-gateway", "payments-gateway", without("client.name"))
	require.NotContains(t, pgOld.Facts.FailingDependencies, clearing, pgOld.Compact)

	loans := micrometerOverview(t, "fh5-twin-month-end-locks-rolling-loans-api", "loans-api", keep)
	require.Contains(t, loans.Facts.SlowDependencies, "dataSource", loans.Compact)
	require.NotNil(t, loans.Facts.ConnectionPool, loans.Compact)
	require.GreaterOrEqual(t, loans.Facts.ConnectionPool.Failed, loans.Facts.ConnectionPool.EntryErrors, loans.Compact)
	loansOld := micrometerOverview(t, "fh5-twin-month-end-locks-rolling-loans-api", "loans-api", without("jdbc.datasource.name"))
	require.NotContains(t, loansOld.Facts.SlowDependencies, "dataSource", loansOld.Compact)
}

// TestPoolTextOnEntrySpans: ADO.NET's pool fails in SqlConnection.Open,
// before SqlClient's instrumentation starts a command span, so on heldout6's
// pool-only twin (an index rebuild's locks drain dispatch-api's pool; its
// SqlClient spans only slow down) the pool's "Timeout expired … prior to
// obtaining a connection from the pool" is on the failed ASP.NET Core server
// spans alone: they are read as failed pool spans, at least as many as the
// service's failing requests. With mutant sandbox.pool_entry_texts (the
// old reading) no pool is found and persona:marker's and persona:quality's
// rollbacks were allowed.
func TestPoolTextOnEntrySpans(t *testing.T) {
	t.Parallel()
	keep := func(spans []incident.Span) []incident.Span { return spans }
	out := editedOverview(t, "incidents-heldout6-twins/kf6-twin-index-rebuild-pool-only-dispatch-api", keep)
	require.NotNil(t, out.Facts.ConnectionPool, out.Compact)
	require.GreaterOrEqual(t, out.Facts.ConnectionPool.Failed, int64(3), out.Compact)
	require.GreaterOrEqual(t, 4*out.Facts.ConnectionPool.Failed, out.Facts.ConnectionPool.EntryErrors, out.Compact)
}
