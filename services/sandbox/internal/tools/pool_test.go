package tools_test

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// pooled is a recording around "api": a caller "web" (web → api), a callee
// "ledger" (api → ledger, with ledger's own pool beneath), and an unrelated
// neighbour "batch" with a pool of its own. api rolled out v2 five minutes
// before the onset; from the onset on, who fails says which pool (or which
// release) fails.
type pooled struct {
	// key is the pool attribute api's pool spans carry ("" writes none).
	key string
	// apiPool: api's own pool runs dry; its acquisitions fail beneath its
	// entry spans, which fail with them.
	apiPool bool
	// apiSlowPool: api's acquisitions wait ten times as long, none fails.
	apiSlowPool bool
	// apiPanic: v2 of api throws, its pool stays healthy.
	apiPanic bool
	// calleePool: ledger's pool runs dry beneath api's calls; api fails
	// through its calls.
	calleePool bool
	// callerPool: web's pool runs dry (web fails on its own).
	callerPool bool
	// neighbourPool: batch's pool runs dry.
	neighbourPool bool
	// serverKey: api's server spans carry the pool attribute too.
	serverKey bool
}

func (p pooled) incident(t *testing.T) (*incident.Incident, time.Time) {
	r := rand.New(rand.NewPCG(17, 19))
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	onset, deploy, startsAt := now.Add(-10*time.Minute), now.Add(-15*time.Minute), now.Add(-4*time.Minute)
	inc := &incident.Incident{Meta: incident.Meta{ID: "pooled", Service: "api", Now: now}}
	add := func(at time.Time, svc, version, trace, id, parent, name string, kind int, d time.Duration, msg string, attrs map[string]json.RawMessage) {
		s := incident.Span{Timestamp: at, TraceID: trace, SpanID: id, ParentSpanID: parent, Name: name, Kind: kind, DurationNano: int64(d),
			Resource: map[string]string{"service.name": svc, "service.version": version}, Attributes: attrs}
		if msg != "" {
			s.HasError, s.StatusCode, s.StatusMessage = true, 2, msg
		}
		inc.Spans = append(inc.Spans, s)
	}
	poolAttrs := func(key, name string) map[string]json.RawMessage {
		if key == "" {
			return map[string]json.RawMessage{}
		}
		return map[string]json.RawMessage{key: json.RawMessage(`"` + name + `"`), "db.system": json.RawMessage(`"postgresql"`)}
	}
	const dry = "Timeout acquiring a connection. The pool is probably full."
	for at := now.Add(-60 * time.Minute); at.Before(now); at = at.Add(2 * time.Second) {
		bad := !at.Before(onset)
		v := "v1"
		if !at.Before(deploy) {
			v = "v2"
		}
		trace, root, client, server := hexID(r, 16), hexID(r, 8), hexID(r, 8), hexID(r, 8)
		wait, poolMsg, serverMsg := 2*time.Millisecond, "", ""
		switch {
		case bad && p.apiPool && r.Float64() < 0.5:
			wait, poolMsg, serverMsg = 2*time.Second, dry, "TimeoutError: "+dry
		case bad && p.apiSlowPool:
			wait = 400 * time.Millisecond
		case bad && p.apiPanic && r.Float64() < 0.4:
			serverMsg = "panic: runtime error: invalid memory address or nil pointer dereference"
		}
		calleeMsg := ""
		if bad && p.calleePool && r.Float64() < 0.5 {
			calleeMsg, serverMsg = dry, "upstream ledger answered 500"
		}
		webMsg := ""
		if serverMsg != "" {
			webMsg = "upstream api answered 500"
		}
		add(at, "web", "w1", trace, root, "", "GET /checkout", 2, 80*time.Millisecond, webMsg, map[string]json.RawMessage{})
		add(at, "web", "w1", trace, client, root, "GET", 3, 70*time.Millisecond, webMsg, map[string]json.RawMessage{"server.address": json.RawMessage(`"api"`)})
		serverAttrs := map[string]json.RawMessage{"http.route": json.RawMessage(`"/pay"`)}
		if p.serverKey {
			serverAttrs = poolAttrs(p.key, "api-pool")
		}
		add(at, "api", v, trace, server, client, "GET /pay", 2, 60*time.Millisecond+wait, serverMsg, serverAttrs)
		add(at, "api", v, trace, hexID(r, 8), server, "pool.acquire", 1, wait, poolMsg, poolAttrs(p.key, "api-pool"))
		call := hexID(r, 8)
		add(at, "api", v, trace, call, server, "POST", 3, 20*time.Millisecond, calleeMsg, map[string]json.RawMessage{"server.address": json.RawMessage(`"ledger"`)})
		lsrv := hexID(r, 8)
		add(at, "ledger", "l1", trace, lsrv, call, "POST /entries", 2, 18*time.Millisecond, calleeMsg, map[string]json.RawMessage{})
		add(at, "ledger", "l1", trace, hexID(r, 8), lsrv, "HikariPool.getConnection", 1, time.Millisecond, calleeMsg, poolAttrs("db.client.connection.pool.name", "ledger-pool"))
		if at.Second()%10 == 0 {
			webPool, batchPool := "", ""
			if bad && p.callerPool {
				webPool = dry
			}
			if bad && p.neighbourPool {
				batchPool = dry
			}
			add(at, "web", "w1", hexID(r, 16), hexID(r, 8), "", "session.load", 1, time.Millisecond, webPool, poolAttrs("pool.name", "web-pool"))
			add(at, "batch", "b1", hexID(r, 16), hexID(r, 8), "", "QueuePool.connect", 1, time.Millisecond, batchPool, poolAttrs("db.client.connections.pool.name", "batch-pool"))
		}
	}
	inc.AlertJSON = alertOf(t, "api", startsAt)
	return inc, startsAt
}

// TestPoolWaits: service_overview reads the service's own connection-pool
// spans, named by any of the OpenTelemetry pool attributes, and never a
// caller's, a callee's or a neighbour's.
func TestPoolWaits(t *testing.T) {
	t.Parallel()
	const stable, experimental, oldest = "db.client.connection.pool.name", "db.client.connections.pool.name", "pool.name"
	tests := []struct {
		name string
		p    pooled
		// measured: api's pool spans were found; failed: most of api's
		// failing entry spans have a failing pool span; slower: the waits rose.
		measured, failed, slower bool
		// textOnly: api's pool spans are only its failed spans that say the
		// pool timed out (no pool attribute, no baseline).
		textOnly bool
	}{
		{"api's pool runs dry (stable attribute)", pooled{key: stable, apiPool: true}, true, true, true, false},
		{"api's pool runs dry (1.2x attribute)", pooled{key: experimental, apiPool: true}, true, true, true, false},
		{"api's pool runs dry (oldest attribute)", pooled{key: oldest, apiPool: true}, true, true, true, false},
		{"api's pool waits longer, nothing fails", pooled{key: stable, apiSlowPool: true}, true, false, true, false},
		{"a bad release of api, its pool healthy", pooled{key: stable, apiPanic: true}, true, false, false, false},
		{"a bad release of api; the neighbour's pool runs dry", pooled{key: stable, apiPanic: true, neighbourPool: true}, true, false, false, false},
		{"a bad release of api; the caller's pool runs dry", pooled{key: oldest, apiPanic: true, callerPool: true}, true, false, false, false},
		{"the callee's pool runs dry beneath api's calls", pooled{key: experimental, calleePool: true}, true, false, false, false},
		{"api writes no pool attribute; its pool's timeout is read from the text", pooled{apiPool: true}, true, true, true, true},
		{"a bad release of api writes no pool attribute", pooled{apiPanic: true}, false, false, false, false},
		{"the callee's pool runs dry beneath api's calls; api writes no pool attribute", pooled{calleePool: true}, false, false, false, false},
		{"api's server spans name the pool; only its pool spans count", pooled{key: stable, apiPanic: true, serverKey: true}, true, false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out := apiOverview(t, tt.p.incident)
			f := out.Facts
			pw := f.ConnectionPool
			if !tt.measured {
				require.Nil(t, pw, out.Compact)
				return
			}
			require.NotNil(t, pw, out.Compact)
			if tt.textOnly {
				require.Equal(t, pw.Failed, pw.Spans, "%+v", pw)
				// one pool span that timed out beneath each failed request, and
				// the failed request itself, whose status repeats the pool's
				// text (read since ADO.NET's pool writes no span: an entry
				// span's own pool text; TestPoolTextOnEntrySpans)
				require.Equal(t, 2*pw.EntryErrors, pw.Failed, "%+v", pw)
				require.Zero(t, pw.BaselineSpans)
				return
			}
			require.Positive(t, pw.Spans)
			require.Positive(t, pw.BaselineSpans)
			require.Zero(t, pw.BaselineFailed, "no pool failed before the onset")
			require.Equal(t, tt.failed, pw.Failed > 0 && 2*pw.Failed >= pw.EntryErrors, "%+v\n%s", pw, out.Compact)
			if tt.failed {
				require.Positive(t, pw.EntryErrors)
			}
			require.NotNil(t, pw.P95Ms)
			require.NotNil(t, pw.BaselineP95Ms)
			require.Equal(t, tt.slower, *pw.P95Ms >= 5**pw.BaselineP95Ms, "%+v p95 %v baseline %v", pw, *pw.P95Ms, *pw.BaselineP95Ms)
			require.Contains(t, out.Compact, "connection-pool spans (")
		})
	}
}
