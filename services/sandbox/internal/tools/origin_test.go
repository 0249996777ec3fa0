package tools_test

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// chain is a system of four services in a row, web → api → ledger → db,
// alerted on api; each field says what fails from the onset on.
type chain struct {
	// api, ledger, db: the share of requests whose own span fails with an
	// error there (a release of that service); a callee's error fails its
	// callers' spans above it.
	api, ledger, db float64
	// slowLedger makes ledger's failures latency (8x) instead of errors.
	slowLedger bool
	// abort: a release of api gives up on its calls to ledger after 5 ms in
	// this share of requests; ledger's span, abandoned, fails when it ends.
	abort float64
	// fewer: a release of api fails this share of requests before it calls
	// ledger, and ledger, called less, is slower on the calls left (+120 ms,
	// little beside api's own 400 ms).
	fewer float64
}

func (ch chain) incident(t *testing.T) (*incident.Incident, time.Time) {
	r := rand.New(rand.NewPCG(3, 5))
	onset := topoNow.Add(-12 * time.Minute)
	startsAt := topoNow.Add(-3 * time.Minute)
	inc := &incident.Incident{Meta: incident.Meta{ID: "chain", Service: "api", Now: topoNow}}
	add := func(at time.Time, trace, id, parent, svc, name string, kind int, ms float64, failed bool) {
		s := incident.Span{Timestamp: at, TraceID: trace, SpanID: id, ParentSpanID: parent, Name: name, Kind: kind,
			DurationNano: int64(ms * 1e6), HasError: failed, Resource: map[string]string{"service.name": svc, "service.version": "v1"},
			Attributes: map[string]json.RawMessage{}}
		if failed {
			s.StatusCode = 2
		}
		inc.Spans = append(inc.Spans, s)
	}
	ms := func(base float64) float64 { return base * (0.8 + 0.4*r.Float64()) }
	for at := topoNow.Add(-60 * time.Minute); at.Before(topoNow); at = at.Add(3 * time.Second) {
		bad := !at.Before(onset)
		hit := func(p float64) bool { return bad && r.Float64() < p }
		trace := hexID(r, 16)
		webRoot, webClient, apiServer, apiClient, ledgerServer, ledgerClient, dbServer := hexID(r, 8), hexID(r, 8), hexID(r, 8), hexID(r, 8), hexID(r, 8), hexID(r, 8), hexID(r, 8)
		dbMs, dbErr := ms(10), hit(ch.db)
		ledgerMs, ledgerErr := ms(20)+dbMs, hit(ch.ledger) || dbErr
		if ch.slowLedger && ledgerErr {
			ledgerMs, ledgerErr = ledgerMs*8, false
		}
		apiOwn, apiMs := hit(ch.api), ms(40)
		if ch.fewer > 0 {
			apiMs = ms(400)
		}
		aborted, early := hit(ch.abort), hit(ch.fewer)
		calls := !early
		callMs, callErr := ledgerMs+1, ledgerErr
		switch {
		case aborted:
			callMs, callErr = 5, true
			ledgerMs, ledgerErr = ledgerMs+30, true
		case bad && ch.fewer > 0 && calls:
			ledgerMs += 120
			callMs = ledgerMs + 1
		}
		if calls {
			apiMs += callMs
		}
		apiErr := apiOwn || callErr && calls || early
		add(at, trace, webRoot, "", "web", "GET /page", 2, apiMs+17, apiErr)
		add(at.Add(time.Millisecond), trace, webClient, webRoot, "web", "GET /api", 3, apiMs+2, apiErr)
		add(at.Add(2*time.Millisecond), trace, apiServer, webClient, "api", "GET /api", 2, apiMs, apiErr)
		if !calls {
			continue
		}
		add(at.Add(3*time.Millisecond), trace, apiClient, apiServer, "api", "POST /entries", 3, callMs, callErr)
		inc.Spans[len(inc.Spans)-1].Attributes["peer.service"] = json.RawMessage(`"ledger"`)
		add(at.Add(4*time.Millisecond), trace, ledgerServer, apiClient, "ledger", "POST /entries", 2, ledgerMs, ledgerErr)
		add(at.Add(5*time.Millisecond), trace, ledgerClient, ledgerServer, "ledger", "SELECT entries", 3, dbMs+1, dbErr)
		add(at.Add(6*time.Millisecond), trace, dbServer, ledgerClient, "db", "SELECT entries", 2, dbMs, dbErr)
	}
	inc.AlertJSON = alertOf(t, "api", startsAt)
	return inc, startsAt
}

// TestOriginNeedsMostFailuresToBeginThere: the alerted service's failing
// traces are followed down to where their failures begin; a callee one or
// two hops down is the origin only when most of them begin there (errors or
// latency), never when a few do or when they begin in the alerted service.
func TestOriginNeedsMostFailuresToBeginThere(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		ch     chain
		origin string
		path   []string
		signal string
	}{
		{"a release of api: the failures begin in api, no origin", chain{api: 0.8}, "", nil, ""},
		{"a release of ledger: the failures begin one hop down", chain{ledger: 0.8}, "ledger", []string{"api", "ledger"}, "errors"},
		{"a release of db: the failures begin two hops down", chain{db: 0.8}, "db", []string{"api", "ledger", "db"}, "errors"},
		{"a slow ledger: the latency begins one hop down", chain{ledger: 0.8, slowLedger: true}, "ledger", []string{"api", "ledger"}, "latency"},
		{"a few failures of ledger under a release of api are no origin", chain{api: 0.7, ledger: 0.15}, "", nil, ""},
		{"calls api abandons fail in ledger, but api's failures begin in api", chain{abort: 0.8}, "", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out := apiOverview(t, tt.ch.incident)
			o := out.Facts.Origin
			if tt.origin == "" {
				require.Nil(t, o, out.Compact)
				require.NotContains(t, out.Compact, "(the origin:")
				return
			}
			require.NotNil(t, o, out.Compact)
			require.Equal(t, tt.origin, o.Service, out.Compact)
			require.Equal(t, tt.path, o.Path)
			require.Equal(t, tt.signal, o.Signal)
			require.GreaterOrEqual(t, o.Share, 0.5)
			require.LessOrEqual(t, o.Failures, o.Total)
			require.NotNil(t, o.Onset)
			require.False(t, o.Onset.After(out.Facts.Onset.Add(2*time.Minute)), "the origin's onset %s follows api's %s", o.Onset, out.Facts.Onset)
			require.Contains(t, out.Compact, "failures begin in "+tt.origin)
			require.Contains(t, out.Facts.CoRegressed, tt.origin, "rolling back api does not fix failures that begin in %s", tt.origin)
		})
	}
}

// TestDownstreamEffectsAreNotASharedCause: a callee that regressed because
// api calls it differently since its onset (abandons the calls, calls it
// less) is downstream, out of CoRegressed; a callee where api's failures
// begin stays a shared cause (and is the origin), and so does one failing on
// its own beneath api's calls, however few of api's failures it causes.
func TestDownstreamEffectsAreNotASharedCause(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		ch         chain
		shared     []string
		downstream []string
	}{
		{"calls api abandons fail in ledger: downstream", chain{abort: 0.8}, nil, []string{"ledger"}},
		{"api calls ledger less and ledger slows: not read as an effect yet, a shared cause", chain{fewer: 0.8}, []string{"ledger"}, nil},
		{"a release of ledger: a shared cause and the origin", chain{ledger: 0.8}, []string{"ledger"}, nil},
		{"ledger failing on its own beneath api's calls stays a shared cause", chain{api: 0.7, ledger: 0.15}, []string{"ledger"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out := apiOverview(t, tt.ch.incident)
			require.Equal(t, tt.shared, out.Facts.CoRegressed, out.Compact)
			require.Equal(t, tt.downstream, out.Facts.Downstream, out.Compact)
			for _, d := range tt.downstream {
				require.Contains(t, out.Compact, "effect of api")
				require.NotContains(t, out.Facts.CoRegressed, d)
				require.NotContains(t, out.Facts.FailingDependencies, d, "a callee the release abandons is no failing dependency")
			}
		})
	}
}

// TestARetryStormsCalleeIsNoOrigin: a callee that fails under the load of
// the alerted service's own retries holds the failing spans where api's
// failures begin, but api's release broke it: it is propagation, not the
// origin, and api's failures stay api's.
func TestARetryStormsCalleeIsNoOrigin(t *testing.T) {
	t.Parallel()
	out := apiOverview(t, topology{apiFails: true, retries: true}.incident)
	require.Contains(t, out.Facts.Propagated, "db-proxy", out.Compact)
	require.Nil(t, out.Facts.Origin, out.Compact)
	require.NotContains(t, out.Facts.CoRegressed, "db-proxy")
}
