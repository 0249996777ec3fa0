package facts_test

import (
	"testing"
	"time"

	"agentk/contracts"
	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"

	"github.com/stretchr/testify/require"
)

// TestRefusedPeers: a failing dependency refuses the service's requests
// when most (80%) of its failed calls since the onset carry a refusal
// status: HTTP 4xx under either convention, gRPC INVALID_ARGUMENT or
// FAILED_PRECONDITION; not the callee's own state (401, 403, 408, 429, 5xx,
// gRPC UNAVAILABLE or UNAUTHENTICATED), a request its client closed (499),
// calls with no status, too few calls, or a mix with its own faults.
func TestRefusedPeers(t *testing.T) {
	t.Parallel()
	onset := time.Date(2026, 12, 1, 10, 20, 0, 0, time.UTC)
	after := onset.Add(time.Minute)
	call := func(at time.Time, status map[string]any) signoz.RawRow {
		attrs := map[string]any{"net.peer.name": "pricing"}
		for k, v := range status {
			attrs[k] = v
		}
		return signoz.RawRow{Timestamp: at, Data: map[string]any{"kind_string": "Client", "has_error": true,
			"resources_string": map[string]any{"service.name": "storefront"}, "attributes_string": attrs}}
	}
	repeat := func(n int, r signoz.RawRow) []signoz.RawRow {
		out := make([]signoz.RawRow, n)
		for i := range out {
			out[i] = r
		}
		return out
	}
	old := func(code float64) map[string]any { return map[string]any{"http.status_code": code} }
	grpc := func(code float64) map[string]any { return map[string]any{"rpc.grpc.status_code": code} }
	tests := []struct {
		name string
		rows []signoz.RawRow
		want map[string]float64
	}{
		{"422s under the older convention", repeat(5, call(after, old(422))), map[string]float64{"pricing": 1}},
		{"404s under the stable convention", repeat(3, call(after, map[string]any{"http.response.status_code": 404.0})), map[string]float64{"pricing": 1}},
		{"gRPC INVALID_ARGUMENT", repeat(3, call(after, grpc(3))), map[string]float64{"pricing": 1}},
		{"gRPC FAILED_PRECONDITION", repeat(3, call(after, grpc(9))), map[string]float64{"pricing": 1}},
		{"503s: its own failure", repeat(5, call(after, old(503))), map[string]float64{}},
		{"429s: its own limit", repeat(5, call(after, old(429))), map[string]float64{}},
		{"401s: its credentials", repeat(5, call(after, old(401))), map[string]float64{}},
		{"403s: its credentials", repeat(5, call(after, old(403))), map[string]float64{}},
		{"408s: a timeout", repeat(5, call(after, old(408))), map[string]float64{}},
		{"499s: the caller gave up", repeat(5, call(after, old(499))), map[string]float64{}},
		{"gRPC UNAVAILABLE", repeat(5, call(after, grpc(14))), map[string]float64{}},
		{"gRPC UNAUTHENTICATED", repeat(5, call(after, grpc(16))), map[string]float64{}},
		{"no status: timeouts", repeat(5, call(after, nil)), map[string]float64{}},
		{"two refusals: too few", repeat(2, call(after, old(422))), map[string]float64{}},
		{"refusals before the onset", repeat(5, call(onset.Add(-time.Minute), old(422))), map[string]float64{}},
		{"4 refusals and a 503", append(repeat(4, call(after, old(422))), call(after, old(503))), map[string]float64{"pricing": 0.8}},
		{"3 refusals and 2 503s: not 80%", append(repeat(3, call(after, old(422))), repeat(2, call(after, old(503)))...), map[string]float64{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := facts.RefusedPeers(tc.rows, "storefront", onset, []string{"pricing"}, []string{"server.address", "net.peer.name"})
			require.Equal(t, tc.want, got)
		})
	}
}

// TestRefusedCalleeMustNotFailOthers: a callee that refuses the service's
// requests leaves the shared causes only when its error spans a minute,
// less the service's refused calls to it, rule out a 1.5x rise over its
// baseline's. The numbers are ho2-bad-bundle-quantities-storefront-pricing's
// (pricing: 35 error spans in 74 minutes, 142 in 16 since, 138 of them
// storefront's refused calls). A callee that refuses everybody (its own
// change), one whose calls also time out and hide others' failures, or one
// with no failures to compare with stays a shared cause. Kills mutant
// sandbox.refused_others.
func TestRefusedCalleeMustNotFailOthers(t *testing.T) {
	t.Parallel()
	fell := func(before, since float64) *facts.CallsFell {
		return &facts.CallsFell{ReqBefore: 700, ReqSince: 300, ErrBefore: before, ErrSince: since, MinutesBefore: 74, MinutesSince: 16}
	}
	tests := []struct {
		name          string
		callee, calls *facts.CallsFell
		share         float64
		want          bool
	}{
		{"only the service's calls fail more", fell(35, 142), fell(0, 138), 1, true},
		{"its other callers fail 60 more: it refuses everybody", fell(36, 198), fell(0, 138), 1, false},
		{"a fifth of the failed calls are timeouts: only the refusals come off", fell(36, 130), fell(0, 125), 0.8, false},
		{"no other failures in the baseline: a rise cannot be ruled out", fell(0, 138), fell(0, 138), 1, false},
		{"unmeasured callee", nil, fell(0, 138), 1, false},
		{"unmeasured calls", fell(36, 141), nil, 1, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, facts.OthersHeld(tc.callee, tc.calls, tc.share))
		})
	}

	o := &contracts.FailureOrigin{Service: "pricing"}
	require.Nil(t, facts.UnlessRefused(o, []string{"pricing"}))
	require.Equal(t, o, facts.UnlessRefused(o, []string{"loyalty"}))
}

// pricingSeries is a callee's own minutes as ho2-bad-bundle-quantities-
// storefront-pricing records them: 40 sampled requests a minute from 09:06,
// an error every other minute (its other caller's 500s) and, from 10:20,
// errors a minute (storefront's refused calls and the others'); a p95 of
// 60 ms, then since (ms) from 10:20 on.
func pricingSeries(errs func(i int) float64, since float64) []facts.Minute {
	from := time.Date(2026, 12, 1, 9, 6, 0, 0, time.UTC)
	var ms []facts.Minute
	for i := range 90 {
		m := facts.Minute{At: from.Add(time.Duration(i) * time.Minute), Requests: 40, Errors: float64(i % 2), P95Ms: 60 + float64(i%3)}
		if i >= 74 {
			m.Errors, m.P95Ms = errs(i-74), since+float64(i%3)
		}
		ms = append(ms, m)
	}
	return ms
}

// judgeRefusal has JudgePropagation judge pricing, a callee that refuses
// storefront's requests (every failed call a 422) and is the origin of its
// failures unless origin is nil, with pricing's own minutes ms.
func judgeRefusal(ms []facts.Minute, origin *contracts.FailureOrigin) facts.Judged {
	at := time.Date(2026, 12, 1, 10, 20, 0, 0, time.UTC)
	on := facts.Onset{At: &at, BaselineFrom: time.Date(2026, 12, 1, 9, 6, 0, 0, time.UTC)}
	calls := &facts.CallsFell{ReqBefore: 2271, ReqSince: 461, ErrSince: 138, MinutesBefore: 74, MinutesSince: 16}
	return facts.JudgePropagation(facts.PropagationInput{Service: "storefront", CoRegressed: []string{"pricing"}, Examined: []string{"pricing"},
		Origin: origin, FailingDeps: []string{"pricing"}, Onsets: map[string]facts.Onset{"pricing": on},
		Series: map[string][]facts.Minute{"pricing": ms}, AlertAt: time.Date(2026, 12, 1, 10, 28, 57, 0, time.UTC),
		Refusals: map[string]float64{"pricing": 1}, PeerFell: map[string]*facts.CallsFell{"pricing": calls}})
}

// TestRefusedCalleeMustKeepItsLatency: through JudgePropagation, a callee
// that refuses the service's requests (138 refused calls in 16 minutes,
// its other callers' errors as in its baseline) is downstream, not shared,
// when it is the origin and its own p95 stays on its baseline. It stays a
// shared cause when its p95 leaves its baseline since the onset (it slows
// for everyone: its own trouble; kills mutant sandbox.refused_latency),
// when its other callers' errors rise (60 more), when it is not the origin
// of the service's failures (the gate reads only the origin's release
// ledger, and a release of the callee must deny), and when its series is
// unmeasured or too short to judge.
func TestRefusedCalleeMustKeepItsLatency(t *testing.T) {
	t.Parallel()
	refused := func(int) float64 { return 9 }
	origin := &contracts.FailureOrigin{Service: "pricing"}
	j := judgeRefusal(pricingSeries(refused, 60), origin)
	require.Equal(t, []string{"pricing"}, j.Refused)
	require.Equal(t, []string{"pricing"}, j.Downstream)
	require.Empty(t, j.Shared)

	tests := []struct {
		name   string
		ms     []facts.Minute
		origin *contracts.FailureOrigin
	}{
		{"its p95 leaves its baseline since the onset", pricingSeries(refused, 240), origin},
		{"its other callers' errors rise", pricingSeries(func(int) float64 { return 13 }, 60), origin},
		{"not the origin", pricingSeries(refused, 60), nil},
		{"another callee is the origin", pricingSeries(refused, 60), &contracts.FailureOrigin{Service: "ledger"}},
		{"unmeasured", nil, origin},
		{"too short to judge", pricingSeries(refused, 60)[70:], origin},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			j := judgeRefusal(tc.ms, tc.origin)
			require.Empty(t, j.Refused)
			require.Equal(t, []string{"pricing"}, j.Shared)
		})
	}
	require.True(t, facts.LatencyHeld(pricingSeries(refused, 60), time.Date(2026, 12, 1, 10, 28, 57, 0, time.UTC)))
	require.False(t, facts.LatencyHeld(pricingSeries(refused, 240), time.Date(2026, 12, 1, 10, 28, 57, 0, time.UTC)))
	require.False(t, facts.LatencyHeld(pricingSeries(refused, 60)[80:], time.Date(2026, 12, 1, 10, 28, 57, 0, time.UTC)), "no baseline to judge by")
	require.False(t, facts.LatencyHeld(nil, time.Date(2026, 12, 1, 10, 28, 57, 0, time.UTC)))
}
