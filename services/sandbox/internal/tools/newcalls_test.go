package tools_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agentk/contracts/incident"
	"agentk/services/sandbox/internal/compact"
	"agentk/services/sandbox/internal/tools"

	"github.com/stretchr/testify/require"
)

// kf6 is heldout6's back-to-back warehouse release: 4.0.1 (09:38:44) sends
// SQL Server a new INSERT naming SlotReservations.CutoffUtc, a column whose
// migration has not run, and only that statement fails; its reads and the
// old INSERT succeed as before.
const (
	kf6     = "incidents-heldout6/kf6-back-to-back-slots-warehouse-api"
	kf6SQL  = "sql-kestrel-prod.database.windows.net"
	kf6Stmt = "db.query.text"
)

// kf6Since is the first minute of 4.0.1's failures.
var kf6Since = time.Date(2026, 12, 5, 9, 39, 0, 0, time.UTC)

// failOldStatements makes every third of the old statements' calls to SQL
// Server since 09:39 fail, as an outage would: the reads every version
// sends fail beside the new INSERT.
func failOldStatements(spans []incident.Span) []incident.Span {
	n := 0
	for i, s := range spans {
		var stmt string
		if raw, ok := s.Attributes[kf6Stmt]; !ok || json.Unmarshal(raw, &stmt) != nil || s.Timestamp.Before(kf6Since) || strings.Contains(stmt, "CutoffUtc") {
			continue
		}
		if n++; n%3 == 0 {
			spans[i].HasError = true
		}
	}
	return spans
}

// TestOverviewNewCallFailures: the overview reads the failing database's
// calls by statement and version on both sides of the onset, and a
// database failing only on the running version's new statement is no
// failing dependency (it was one before the query was planned: the
// oracle's rollback was denied); the same database failing a third of the
// old statements too stays one.
func TestOverviewNewCallFailures(t *testing.T) {
	out := editedOverview(t, kf6, func(s []incident.Span) []incident.Span { return s })
	require.NotContains(t, out.Facts.FailingDependencies, kf6SQL)
	require.Contains(t, out.Compact, "dependencies whose failures since the onset are warehouse-api's new calls")
	require.Contains(t, out.Compact, kf6SQL+" (the effect of")

	out = editedOverview(t, kf6, failOldStatements)
	require.Contains(t, out.Facts.FailingDependencies, kf6SQL)
	require.NotContains(t, out.Compact, "new calls (call keys")
}

// dropOldStatements keeps only the first 20 of the old statements' calls to
// SQL Server since 09:39: too few to say the old calls are healthy.
func dropOldStatements(spans []incident.Span) []incident.Span {
	var out []incident.Span
	n := 0
	for _, s := range spans {
		var stmt string
		if raw, ok := s.Attributes[kf6Stmt]; ok && json.Unmarshal(raw, &stmt) == nil && !s.Timestamp.Before(kf6Since) && !strings.Contains(stmt, "CutoffUtc") {
			if n++; n > 20 {
				continue
			}
		}
		out = append(out, s)
	}
	return out
}

// TestOverviewNewCallsNeedOldCalls: with the old statements' calls since the
// onset too few to tell (20 kept, under facts.MinOldCalls), the database
// stays a failing dependency, though every failure is the new statement's
// (mutant sandbox.new_calls_old_healthy lets it go).
func TestOverviewNewCallsNeedOldCalls(t *testing.T) {
	out := editedOverview(t, kf6, dropOldStatements)
	require.Contains(t, out.Facts.FailingDependencies, kf6SQL)
}

// TestOverviewNewCallsCutShort: when the new calls' answers come back fewer
// than planned (the last one missing), nothing is compared, the database
// stays a failing dependency, and the overview says the comparison was not
// read rather than saying nothing.
func TestOverviewNewCallsCutShort(t *testing.T) {
	inc, err := incident.Load(filepath.Join("../../../../e2e", kf6))
	require.NoError(t, err)
	h := newHarness(t, inc, alertStartsAt(t, inc))
	h.now = inc.Meta.Now
	c, resps := overviewAnswers(t, h, inc.Meta.Service, "")
	out, err := tools.Build(c, resps[:len(resps)-1], h.lim, compact.DefaultLimits)
	require.NoError(t, err)
	require.Contains(t, out.Facts.FailingDependencies, kf6SQL)
	require.Contains(t, out.Compact, "the new calls' comparison was not read:")
	require.NotContains(t, out.Compact, "new calls (call keys")
}
