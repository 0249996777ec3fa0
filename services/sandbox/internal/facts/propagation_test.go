package facts_test

import (
	"fmt"
	"testing"

	"agentk/contracts"
	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"

	"github.com/stretchr/testify/require"
)

// propagationTrace is one failing trace of a co-regressed service svc of
// the given shape around api.
func propagationTrace(tid, svc, shape string) []signoz.RawRow {
	switch shape {
	case "caller": // svc calls api and fails on api's failure
		return traceRows(tid, sp{"w", "", svc, "GET /", 0, 400, true}, sp{"a", "w", "api", "GET /pay", 10, 300, true})
	case "abandoned": // api gives up on svc, which fails after api is gone
		return traceRows(tid, sp{"a", "", "api", "GET /pay", 0, 100, true}, sp{"c", "a", svc, "charge", 10, 400, true})
	case "slow": // svc over its own p95 threshold beneath api, no error
		return traceRows(tid, sp{"a", "", "api", "GET /pay", 0, 900, false}, sp{"c", "a", svc, "charge", 10, 800, false})
	}
	// svc fails on its own beneath api's call
	return traceRows(tid, sp{"a", "", "api", "GET /pay", 0, 300, true}, sp{"c", "a", svc, "charge", 10, 200, true})
}

// TestJudgePropagation: a caller failing on api's failures, and a callee
// failing under a load api multiplied, propagated; a callee api abandons is
// downstream, unless it is the origin; a callee failing on its own beneath
// api's calls at its usual load is a shared cause; a callee only called less
// is downstream unless it is a failing dependency (by name or by its
// Kubernetes DNS name; kills mutant sandbox.failing_dep_dns); a service not examined
// stays shared (fail closed).
func TestJudgePropagation(t *testing.T) {
	t.Parallel()
	fewer, more, same := fellOf(10, 0.8, 5, 0.8), fellOf(10, 0.8, 5, 1.6), fellOf(10, 0.8, 10, 1.6)
	three, one := 3.0, 1.0
	tests := []struct {
		name   string
		shape  string
		load   *float64
		fell   *facts.CallsFell
		origin string
		deps   []string
		want   string
	}{
		{"a caller of api", "caller", nil, nil, "", nil, "propagated"},
		{"a callee under three times the load", "cause", &three, nil, "", nil, "propagated"},
		{"a callee failing on its own at its usual load", "cause", &one, nil, "", nil, "shared"},
		{"a callee slower than its threshold beneath api", "slow", &one, nil, "", nil, "shared"},
		{"a callee api abandons", "abandoned", &one, nil, "", nil, "abandoned"},
		{"a callee api abandons that is the origin", "abandoned", &one, nil, "svc", nil, "shared"},
		{"no failing traces, called half as much", "", nil, fewer, "", nil, "fewer"},
		{"called half as much, but a failing dependency", "", nil, fewer, "", []string{"svc"}, "shared"},
		{"called half as much, a failing dependency by its cluster DNS name", "", nil, fewer, "", []string{"svc.payments.svc.cluster.local:8443"}, "shared"},
		{"called half as much, a failing canary's DNS name is not svc", "", nil, fewer, "", []string{"svc-canary.payments.svc.cluster.local"}, "fewer"},
		{"no failing traces, called half as much, failing twice as often", "", nil, more, "", nil, "shared"},
		{"no failing traces, called as much", "", nil, same, "", nil, "shared"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := facts.PropagationInput{Service: "api", ThrMs: 500, CoRegressed: []string{"other", "svc"}, Examined: []string{"svc"}, IDs: map[string][]string{},
				Thresholds: map[string]float64{"svc": 500}, Onsets: map[string]facts.Onset{"svc": {BaselineP95Ms: 250}}, Load: map[string]*float64{"svc": tt.load},
				FailingDeps: tt.deps, Fell: map[string]*facts.CallsFell{"svc": tt.fell}}
			for i := range 6 {
				if tt.shape != "" {
					id := fmt.Sprint("t", i)
					in.IDs["svc"], in.Rows = append(in.IDs["svc"], id), append(in.Rows, propagationTrace(id, "svc", tt.shape)...)
				}
			}
			if tt.origin != "" {
				in.Origin = &contracts.FailureOrigin{Service: tt.origin}
			}
			j := facts.JudgePropagation(in)
			got := map[string][]string{"shared": j.Shared, "propagated": j.Propagated, "abandoned": j.Abandoned, "fewer": j.Fewer}
			require.Equal(t, []string{"other"}, got["shared"][:1], "a service not examined stays shared")
			for k, v := range got {
				if k == "shared" {
					v = v[1:]
				}
				require.Equal(t, k == tt.want, len(v) == 1 && v[0] == "svc", "%s: %v", k, got)
			}
			require.Equal(t, tt.want == "abandoned" || tt.want == "fewer", len(j.Downstream) == 1)
			require.Equal(t, len(in.IDs["svc"]), j.Seen["svc"].Traces)
		})
	}
}

// fellOf is CallsFellOf of fellSeries.
func fellOf(req, errs, reqSince, errSince float64) *facts.CallsFell {
	ms, on := fellSeries(req, errs, reqSince, errSince)
	return facts.CallsFellOf(ms, on)
}
