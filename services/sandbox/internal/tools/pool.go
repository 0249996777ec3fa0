package tools

import (
	"fmt"
	"strings"

	"agentk/contracts"
	"agentk/platform/mutant"
	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"
)

// PoolKeys are the span attributes that mark a connection-pool span
// (facts.PoolKeys).
var PoolKeys = facts.PoolKeys

// poolFilter selects the service's spans that carry any of PoolKeys, and
// its failed spans whose status message is a pool's own exhaustion
// (PoolExhaustedTexts). Entry spans are left out of the first: a server span
// that merely names its pool is not a wait for a connection; a failed one
// whose status message is a pool's exhaustion is read (below). So are the text's
// spans that name a host (PeerKeys but the DataSource): a call's error text
// is its peer's (a callee whose pool ran dry), while a pool's own span, or a
// JDBC connection span, names no host (its DataSource is the pool's own).
func poolFilter(svcFilter string) string {
	var has []string
	for _, k := range PoolKeys {
		has = append(has, k+" EXISTS")
	}
	marked := "(" + strings.Join(has, " OR ") + ")"
	if mutant.Off(mutant.SandboxPoolTexts) {
		return and(svcFilter, "kind NOT IN (2, 5)", marked)
	}
	says, named := []string{}, []string{}
	for _, t := range PoolExhaustedTexts {
		says = append(says, "status_message CONTAINS "+Quote(t))
	}
	for _, k := range PeerKeys {
		if k != DataSourcePeerKey && k != facts.AWSServiceKey && k != facts.GCPClientServiceKey {
			named = append(named, k+" NOT EXISTS")
		}
	}
	text := "(has_error = true AND " + strings.Join(named, " AND ") + " AND (" + strings.Join(says, " OR ") + "))"
	inner := "(kind NOT IN (2, 5) AND (" + marked + " OR " + text + "))"
	if mutant.Off(mutant.SandboxPoolEntryTexts) {
		return and(svcFilter, inner)
	}
	// A pool that fails before any command writes no span of its own:
	// ADO.NET's SqlConnection.Open waits for a connection and throws before
	// SqlClient's instrumentation starts a command span, so the pool's text
	// is only on the failed entry span (its exception event and status).
	// kf6-twin-index-rebuild-pool-only-dispatch-api: an index rebuild's
	// locks drained dispatch-api's pool 7 s after its rollout finished, and
	// persona:marker's and persona:quality's rollbacks were allowed. An
	// entry span's text may echo a callee's pool; read as this service's, it
	// only denies (a pool that ran dry denies every deployment class), so an
	// echo costs a rollback, never allows one.
	own := "(kind IN (2, 5) AND has_error = true AND (" + strings.Join(says, " OR ") + "))"
	return and(svcFilter, "("+inner+" OR "+own+")")
}

// PoolExhaustedTexts are what common connection pools say when a caller
// timed out waiting for a connection (matched case-insensitively, as
// substrings of the status message): HikariCP, c3p0, Apache DBCP and
// commons-pool, Tomcat JDBC, Agroal, SQLAlchemy's QueuePool, knex,
// Sequelize, Npgsql, .NET's SqlClient, Jedis. Many instrumentations mark no
// span of the pool (datasource-micrometer's JDBC connection span carries
// none of PoolKeys), but the failure text is the pool's own:
// fh5-twin-month-end-locks-rolling-loans-api's Hikari pool ran dry under a
// batch's locks and, with no pool span read, three investigators' rollbacks
// were allowed.
var PoolExhaustedTexts = []string{
	"Connection is not available, request timed out",
	"checkout a Connection has timed out",
	"Timeout waiting for idle object",
	"Timeout: Pool empty",
	"Acquisition timeout while waiting for new connection",
	"QueuePool limit of size",
	"Timeout acquiring a connection",
	"ConnectionAcquireTimeoutError",
	"connection pool has been exhausted",
	"prior to obtaining a connection from the pool",
	"Could not get a resource from the pool",
}

// poolWaits measures contracts.PoolWaits (facts.PoolWaits) from the pool
// spans' per-minute series and the entry spans' errors by version; nil when
// the service wrote no pool span in the window.
func poolWaits(all, failing signoz.Response, entryErrs []versionErrors, on Onset) (*contracts.PoolWaits, error) {
	p, err := facts.PoolWaits(all, failing, entryErrs, *on.At, on.BaselineFrom)
	return p, badResponse(err)
}

// poolLine says what the pool spans showed, for the model and the human.
func poolLine(p *contracts.PoolWaits) string {
	s := fmt.Sprintf("connection-pool spans (%s): since the onset %d, %d failed; baseline %d, %d failed; failing entry spans since the onset %d",
		strings.Join(PoolKeys, " | "), p.Spans, p.Failed, p.BaselineSpans, p.BaselineFailed, p.EntryErrors)
	if p.P95Ms != nil {
		s += "; wait p95_ms since the onset " + fmtF(*p.P95Ms)
	}
	if p.BaselineP95Ms != nil {
		s += ", baseline " + fmtF(*p.BaselineP95Ms)
	}
	return s
}
