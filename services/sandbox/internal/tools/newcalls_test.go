package tools_test

import (
	"encoding/json"
	"maps"
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

// voids is e2e/incidents-sparse's sp-gateway-voids-failed-holds:
// payments-gateway v2.14.0 voids, from the payments it fails, holds it
// never placed, and ledger-svc answers 404 to POST /holds/void, a route
// no earlier version called. Its client spans are all named "POST": only
// url.full tells the void from the entries it posts as before.
const (
	voids       = "incidents-sparse/sp-gateway-voids-failed-holds"
	voidsLedger = "ledger-svc"
	voidsSince  = "2026-10-16T10:42:00Z"
)

// urlOf is a span's url.full, "" without one.
func urlOf(s incident.Span) string {
	var u string
	if raw, ok := s.Attributes["url.full"]; ok && json.Unmarshal(raw, &u) == nil {
		return u
	}
	return ""
}

// postEntriesTwice posts every entry since the onset twice (a second
// client span beside the first): the old calls then keep their baseline's
// rate, which the recording's do not (the failing payments void instead of
// posting, and the old calls fall to 0.49x, under facts.OldCallRatio).
func postEntriesTwice(spans []incident.Span) []incident.Span {
	since, _ := time.Parse(time.RFC3339, voidsSince)
	for _, s := range spans {
		if s.Timestamp.Before(since) || !strings.HasSuffix(urlOf(s), "/entries") {
			continue
		}
		twin := s
		twin.SpanID = s.SpanID[:len(s.SpanID)-4] + "beef"
		spans = append(spans, twin)
	}
	return spans
}

// failEntries fails one in every forty of payments-gateway's POST
// /entries calls since the onset, and ledger-svc's answers to them: an
// outage of the old route coinciding with the release.
func failEntries(spans []incident.Span) []incident.Span {
	since, _ := time.Parse(time.RFC3339, voidsSince)
	failed, n := map[string]bool{}, 0
	for i, s := range spans {
		if s.Timestamp.Before(since) || !strings.HasSuffix(urlOf(s), "/entries") {
			continue
		}
		if n++; n%40 == 0 {
			failed[s.SpanID] = true
			spans[i].HasError, spans[i].StatusCode = true, 2
		}
	}
	for i, s := range spans {
		if failed[s.ParentSpanID] && s.Kind == 2 {
			spans[i].HasError, spans[i].StatusCode = true, 2
		}
	}
	return spans
}

// TestOverviewNewCallsByURLPath: read by its URL's path, ledger-svc's
// failures since the onset are the release's new calls (POST /holds/void)
// while its old calls (POST /entries) succeed at their usual rate: no
// failing dependency, and ledger-svc, where the failing traces' failures
// begin, is the release's effect, not a shared cause. By the spans' name
// ("POST", the only key before url.full was one) the void and the entries
// are one call, which fails.
func TestOverviewNewCallsByURLPath(t *testing.T) {
	out := editedOverview(t, voids, postEntriesTwice)
	require.NotContains(t, out.Facts.FailingDependencies, voidsLedger)
	require.NotContains(t, out.Facts.CoRegressed, voidsLedger)
	require.Contains(t, out.Facts.Downstream, voidsLedger)
	require.Contains(t, out.Compact, voidsLedger+" (the effect of")
}

// TestVoidsWithTheOldRouteFailingStayShared: the same release while one
// in forty of the old POST /entries calls fails too (4 of 182 since the
// onset, none of 1,298 before: an outage of ledger-svc at the release):
// its failures are not the release's new calls alone, and ledger-svc
// stays a failing dependency and a shared cause. It kills
// mutant.SandboxNewCallsOldHealthy in place.
func TestVoidsWithTheOldRouteFailingStayShared(t *testing.T) {
	out := editedOverview(t, voids, func(s []incident.Span) []incident.Span { return failEntries(postEntriesTwice(s)) })
	require.Contains(t, out.Facts.FailingDependencies, voidsLedger)
	require.Contains(t, out.Facts.CoRegressed, voidsLedger)
	require.NotContains(t, out.Compact, voidsLedger+" (the effect of")
}

// slugVoids names every void by its own path of letters only
// (/holds/void/<slug>), as a route whose path names its request would.
func slugVoids(spans []incident.Span) []incident.Span {
	n := 0
	for i, s := range spans {
		u := urlOf(s)
		if !strings.HasSuffix(u, "/holds/void") {
			continue
		}
		n++
		slug := ""
		for k := n; k > 0; k /= 26 {
			slug += string(rune('a' + k%26))
		}
		raw, _ := json.Marshal(u + "/" + slug)
		attrs := maps.Clone(s.Attributes)
		attrs["url.full"] = raw
		spans[i].Attributes = attrs
	}
	return spans
}

// TestNewCallsBySlugPathStayFailing: the same failures under a path per
// request (a slug: no digit to write as {id}) are no kinds of calls, every
// one unseen before the onset whatever route it is; the path is refused as
// a call key (facts.ManyPaths) and ledger-svc stays a failing dependency.
func TestNewCallsBySlugPathStayFailing(t *testing.T) {
	out := editedOverview(t, voids, func(s []incident.Span) []incident.Span { return slugVoids(postEntriesTwice(s)) })
	require.Contains(t, out.Facts.FailingDependencies, voidsLedger)
	require.NotContains(t, out.Compact, voidsLedger+" (the effect of")
}
