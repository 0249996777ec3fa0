package facts

import (
	"math"
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

// PoolWaits measures contracts.PoolWaits from the pool spans' per-minute
// series (all: count and p95; failing: the failing count) and the entry
// spans' errors by version (entryErrs), split at onset, the baseline
// beginning at baselineFrom; nil when the service wrote no pool span in the
// window. It returns ErrBadResponse when a response is not a time series.
func PoolWaits(all, failing signoz.Response, entryErrs []VersionErrors, onset, baselineFrom time.Time) (*contracts.PoolWaits, error) {
	ms, err := PerMinute(all, failing)
	if err != nil {
		return nil, err
	}
	p := &contracts.PoolWaits{}
	var before, after []float64
	for _, m := range ms {
		switch {
		case m.At.Before(baselineFrom):
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
		if !time.UnixMilli(e.TS).Before(onset) {
			entry += e.N
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
	m := Round(Median(xs))
	return &m
}
