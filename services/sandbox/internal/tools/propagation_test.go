package tools_test

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// topology is a small system around the affected service "api": a caller
// "web" (web → api), a callee "db-proxy" (api → db-proxy) and an unrelated
// neighbour "batch". fault says which of them fails from the onset on.
type topology struct {
	// apiFails: api's own spans fail (a release of api).
	apiFails bool
	// calleeFails: db-proxy fails, and api with it (api's failing traces hold
	// db-proxy's failing spans beneath api's).
	calleeFails bool
	// neighbourFails: batch fails on its own at the same time (a shared cause
	// outside api's traces).
	neighbourFails bool
	// slow makes the failures latency rather than errors.
	slow bool
	// retries: api resends each call to db-proxy four times, and db-proxy
	// fails under the load (a retry storm of a release of api).
	retries bool
}

func hexID(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.UintN(256))
	}
	return hex.EncodeToString(b)
}

var topoNow = time.Date(2026, 11, 20, 10, 30, 0, 0, time.UTC)

func (tp topology) incident(t *testing.T) (*incident.Incident, time.Time) {
	r := rand.New(rand.NewPCG(7, 11))
	onset := topoNow.Add(-12 * time.Minute)
	startsAt := topoNow.Add(-3 * time.Minute)
	inc := &incident.Incident{Meta: incident.Meta{ID: "topology", Service: "api", Now: topoNow}}
	res := func(svc string) map[string]string {
		return map[string]string{"service.name": svc, "service.version": "v1"}
	}
	add := func(at time.Time, trace, id, parent, svc, name string, kind int, ms float64, failed bool) {
		s := incident.Span{Timestamp: at, TraceID: trace, SpanID: id, ParentSpanID: parent, Name: name, Kind: kind,
			DurationNano: int64(ms * 1e6), HasError: failed, Resource: res(svc), Attributes: map[string]json.RawMessage{}}
		if failed {
			s.StatusCode = 2
		}
		inc.Spans = append(inc.Spans, s)
	}
	fail := func(on bool, ms float64) (float64, bool) {
		switch {
		case !on:
			return ms, false
		case tp.slow:
			return ms * 8, false
		}
		return ms, true
	}
	for at := topoNow.Add(-60 * time.Minute); at.Before(topoNow); at = at.Add(3 * time.Second) {
		bad := !at.Before(onset)
		trace := hexID(r, 16)
		webRoot, webClient, apiServer, apiClient, proxy := hexID(r, 8), hexID(r, 8), hexID(r, 8), hexID(r, 8), hexID(r, 8)
		proxyMs, proxyErr := fail(bad && tp.calleeFails && r.Float64() < 0.8, 20)
		apiMs, apiErr := fail(bad && tp.apiFails && r.Float64() < 0.8, 60)
		apiMs += proxyMs
		apiErr = apiErr || proxyErr
		webMs := apiMs + 15
		add(at, trace, webRoot, "", "web", "GET /page", 2, webMs, apiErr)
		add(at.Add(time.Millisecond), trace, webClient, webRoot, "web", "GET /api", 3, apiMs+2, apiErr)
		add(at.Add(2*time.Millisecond), trace, apiServer, webClient, "api", "GET /api", 2, apiMs, apiErr)
		add(at.Add(3*time.Millisecond), trace, apiClient, apiServer, "api", "POST /query", 3, proxyMs+1, proxyErr)
		add(at.Add(4*time.Millisecond), trace, proxy, apiClient, "db-proxy", "POST /query", 2, proxyMs, proxyErr)
		if bad && tp.retries {
			for k := range 4 {
				c, p := hexID(r, 8), hexID(r, 8)
				ms, failed := fail(r.Float64() < 0.8, 20)
				add(at.Add(time.Duration(5+k)*time.Millisecond), trace, c, apiServer, "api", "POST /query", 3, ms+1, failed)
				add(at.Add(time.Duration(5+k)*time.Millisecond), trace, p, c, "db-proxy", "POST /query", 2, ms, failed)
			}
		}
		// The neighbour: its own traces, never touching api.
		nMs, nErr := fail(bad && tp.neighbourFails && r.Float64() < 0.8, 40)
		add(at.Add(time.Second), hexID(r, 16), hexID(r, 8), "", "batch", "run job", 5, nMs, nErr)
	}
	inc.AlertJSON = alertOf(t, "api", startsAt)
	return inc, startsAt
}

// alertOf is a SigNoz webhook body for svc firing from startsAt.
func alertOf(t *testing.T, svc string, startsAt time.Time) []byte {
	t.Helper()
	alert, err := json.Marshal(map[string]any{"alerts": []any{map[string]any{"labels": map[string]string{"service.name": svc}, "startsAt": startsAt}}})
	require.NoError(t, err)
	return alert
}

// TestCoRegressionTellsPropagationFromASharedCause: a caller that fails
// because it calls the affected service (its failing traces hold the
// service's failing spans beneath its own) is propagation and no alternative;
// a callee that fails beneath the service, and a neighbour that fails without
// it, point at a shared cause.
func TestCoRegressionTellsPropagationFromASharedCause(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		tp         topology
		shared     []string
		propagated []string
	}{
		{"a release of api: its caller fails with it by propagation", topology{apiFails: true}, nil, []string{"web"}},
		{"a slow release of api: its caller is slow with it by propagation", topology{apiFails: true, slow: true}, nil, []string{"web"}},
		{"a failing callee is a shared cause, the caller still propagation", topology{calleeFails: true}, []string{"db-proxy"}, []string{"web"}},
		{"a callee failing under the load of api's retries is propagation", topology{apiFails: true, retries: true}, nil, []string{"db-proxy", "web"}},
		{"a neighbour failing on its own is a shared cause", topology{apiFails: true, neighbourFails: true}, []string{"batch"}, []string{"web"}},
		{"a slow neighbour is a shared cause", topology{apiFails: true, neighbourFails: true, slow: true}, []string{"batch"}, []string{"web"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out := apiOverview(t, tt.tp.incident)
			f := out.Facts
			require.Equal(t, tt.shared, f.CoRegressed, out.Compact)
			require.Equal(t, tt.propagated, f.Propagated, out.Compact)
			for _, p := range tt.propagated {
				require.Contains(t, out.Compact, fmt.Sprintf("%s (", p))
			}
		})
	}
}
