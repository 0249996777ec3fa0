package tools

import (
	"fmt"
	"math"
	"strings"
	"time"

	"agentk/contracts"
	"agentk/services/sandbox/internal/signoz"
)

// PoolKeys are the span attributes that mark a connection-pool span in the
// OpenTelemetry database semantic conventions: the stable
// db.client.connection.pool.name (1.26 on), the experimental
// db.client.connections.pool.name before it (1.2x), and the older pool.name
// of the first db.client.connections.* metrics. Instrumented pools put them
// on the span of a connection's acquisition (HikariPool.getConnection,
// pgxpool.Acquire, knex.acquireConnection, JedisPool.getResource), which sits
// beneath the entry span of the request that waits; names differ by library,
// the attributes do not, so the attributes are what is read.
var PoolKeys = []string{"db.client.connection.pool.name", "db.client.connections.pool.name", "pool.name"}

// poolFilter selects the service's spans that carry any of PoolKeys. The
// entry spans are left out: a server span that merely names its pool is not
// a wait for a connection.
func poolFilter(svcFilter string) string {
	var has []string
	for _, k := range PoolKeys {
		has = append(has, k+" EXISTS")
	}
	return and(svcFilter, "kind NOT IN (2, 5)", "("+strings.Join(has, " OR ")+")")
}

// poolWaits measures contracts.PoolWaits from the pool spans' per-minute
// series (count and p95, failing count) and the entry spans' errors by
// version; nil when the service wrote no pool span in the window.
func poolWaits(all, failing signoz.Response, entryErrs []versionErrors, on Onset) (*contracts.PoolWaits, error) {
	ms, err := perMinute(all, failing)
	if err != nil {
		return nil, err
	}
	onset := *on.At
	p := &contracts.PoolWaits{}
	var before, after []float64
	for _, m := range ms {
		switch {
		case m.At.Before(on.BaselineFrom):
			continue
		case m.At.Before(onset):
			p.BaselineSpans += int64(math.Round(m.Requests))
			p.BaselineFailed += int64(math.Round(m.Errors))
			before = appendP95(before, m)
		default:
			p.Spans += int64(math.Round(m.Requests))
			p.Failed += int64(math.Round(m.Errors))
			after = appendP95(after, m)
		}
	}
	if p.Spans+p.BaselineSpans == 0 {
		return nil, nil
	}
	p.P95Ms, p.BaselineP95Ms = medianOf(after), medianOf(before)
	var entry float64
	for _, e := range entryErrs {
		if !time.UnixMilli(e.ts).Before(onset) {
			entry += e.n
		}
	}
	p.EntryErrors = int64(math.Round(entry))
	return p, nil
}

func appendP95(to []float64, m Minute) []float64 {
	if m.Requests > 0 && !math.IsNaN(m.P95Ms) {
		return append(to, m.P95Ms)
	}
	return to
}

// medianOf is the median of per-minute p95s, rounded: one slow minute (a
// cold start, a GC pause) does not move it; nil for none.
func medianOf(xs []float64) *float64 {
	if len(xs) == 0 {
		return nil
	}
	m := round(median(xs))
	return &m
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
