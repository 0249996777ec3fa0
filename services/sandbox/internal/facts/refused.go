package facts

import (
	"slices"
	"time"

	"agentk/contracts"
	"agentk/platform/mutant"
	"agentk/services/sandbox/internal/signoz"
)

// Refused requests (issue 35, e2e/incidents-heldout2's
// ho2-bad-bundle-quantities-storefront-pricing, the sparse corpus's
// sp-gateway-voids-failed-holds): a callee that answers the affected
// service's new requests with "refused as sent" (HTTP 422, 400, 404; gRPC
// INVALID_ARGUMENT, FAILED_PRECONDITION) regressed with it by construction:
// it fails because of what the service sends, and rolling the service back
// restores it. A callee that broke on its own fails its other callers too,
// answers with its own failure status (5xx, 429, 401/403, UNAVAILABLE,
// timeouts: faults.go), or slows. The separation is the callee's answers,
// and every source below must agree before such a callee leaves CoRegressed
// and FailingDependencies:
//
//   - the answer class, read from the service's own client spans: most of
//     its failed calls to the callee since the onset carry a refusal status
//     (RefusedPeers);
//   - the callee's answers to its other callers: its error spans a minute
//     (its own series), less the service's failed calls to it (both from
//     the same sampled traces), rule out a rise (OthersHeld). Errors, not
//     the slow spans counted as failing elsewhere: a refusal is an answer,
//     and a slow answer is judged by the next reading;
//   - the callee's latency: its own series, errors set aside, holds no
//     sustained p95 departure from its baseline (LatencyHeld), the test that
//     makes any service co-regressed on latency;
//   - the callee is the origin of the service's failures (origin.go): the
//     gate reads the origin's release ledger and denies a release of it from
//     the marker window before the onset on (a stricter validation released
//     by the callee is its own fault), and it reads no other callee's.
//
// The callee stays the origin (its ledger is what the gate reads).
const (
	// RefusedShare is the least share of the service's failed calls to a
	// peer since the onset that must carry a refusal status.
	RefusedShare = 0.8
)

// grpcRefusals are the gRPC codes by which a server says the request was
// refused as sent: INVALID_ARGUMENT, NOT_FOUND, ALREADY_EXISTS,
// FAILED_PRECONDITION, OUT_OF_RANGE. UNAUTHENTICATED and PERMISSION_DENIED
// are left out: a callee whose credentials or keys broke refuses everyone.
var grpcRefusals = []int{3, 5, 6, 9, 11}

// httpNotRefusals are the 4xx statuses that can be the callee's own state
// rather than the request's: credentials (401, 403, 407), a timeout (408),
// too early (425), rate limits (429); and 499, a request its client closed
// (the caller gave up: downstream.go's abandoned call, not a refusal).
var httpNotRefusals = []int{401, 403, 407, 408, 425, 429, 499}

// refusal reports whether a failed client span's status says the peer
// refused the request as sent (HTTP 4xx but httpNotRefusals, or one of
// grpcRefusals).
func refusal(d map[string]any) bool {
	if mutant.Off(mutant.SandboxRefusalClass) {
		return true
	}
	v, http, ok := statusOf(d)
	switch {
	case !ok:
		return false
	case http:
		return v >= 400 && v < 500 && !slices.Contains(httpNotRefusals, int(v))
	}
	return slices.Contains(grpcRefusals, int(v))
}

// RefusedPeers returns the peers among peers to which svc's failed client
// spans since the onset, in rows, number at least MinFaultCalls and at
// least RefusedShare of them carry a refusal status, each with that share.
// Peers are named as DependencyFaults names them.
func RefusedPeers(rows []signoz.RawRow, svc string, onset time.Time, peers, keys []string) map[string]float64 {
	calls, refused := countFailedCalls(rows, svc, onset, peers, keys, refusal)
	out := map[string]float64{}
	for _, p := range peers {
		if calls[p] >= MinFaultCalls && float64(refused[p]) >= RefusedShare*float64(calls[p]) {
			out[p] = float64(refused[p]) / float64(calls[p])
		}
	}
	return out
}

// OthersHeld reports whether a callee's failures that are not the affected
// service's refused calls to it did not rise: callee is its error spans a
// minute around its own onset (CallsFellOf over its series), calls the
// affected service's client spans to it over the same minutes (their
// errors), share the share of those failed since the onset that were
// refused (RefusedPeers). Since the onset only the refused share of the
// failed calls is taken off (a timeout the callee never saw fail must not
// hide another caller's failure); in the baseline all of them (fewer left
// there, a stricter bound). The failures left since the onset must rule out
// a rise of FewerCallsRise over those left in the baseline at
// FewerCallsAlpha (Poisson), as FewerCalls does; a callee with none left in
// its baseline, or unmeasured, cannot rule a rise out (fail closed).
func OthersHeld(callee, calls *CallsFell, share float64) bool {
	since, before, ok := OthersFailed(callee, calls, share)
	if !ok {
		return false
	}
	if mutant.Off(mutant.SandboxRefusedOthers) {
		return true
	}
	lambda := FewerCallsRise * before / callee.MinutesBefore * callee.MinutesSince
	return poissonAtMost(since, lambda) < FewerCallsAlpha
}

// OthersFailed is a callee's failures that are not the affected service's
// failed calls to it, since its onset (less the refused share of them) and
// in its baseline (less all of them), as OthersHeld reads them; ok is false
// when either is unmeasured.
func OthersFailed(callee, calls *CallsFell, share float64) (since, before float64, ok bool) {
	if callee == nil || calls == nil || callee.MinutesSince < 1 || callee.MinutesBefore < 1 {
		return 0, 0, false
	}
	return max(0, callee.ErrSince-min(1, share)*calls.ErrSince), max(0, callee.ErrBefore-calls.ErrBefore), true
}

// LatencyHeld reports whether a callee's own series (its minutes: requests,
// error spans, p95), with its errors set aside, holds no sustained p95
// departure from its baseline under way by the alert at alertAt (FindOnset
// with DefaultMargins, the reading that makes a service co-regressed): its
// answers to everyone kept their speed, so its regression is its errors. A
// series too short to judge (no baseline) fails closed.
func LatencyHeld(ms []Minute, alertAt time.Time) bool {
	if len(ms) == 0 {
		return false
	}
	if mutant.Off(mutant.SandboxRefusedLatency) {
		return true
	}
	speed := make([]Minute, len(ms))
	for i, m := range ms {
		speed[i] = Minute{At: m.At, Requests: m.Requests, P95Ms: m.P95Ms}
	}
	o := FindOnset(speed, alertAt, DefaultMargins)
	return o.At == nil && !o.Short
}

// UnlessRefused is the origin o, or nil when the service judged it to
// refuse its requests (refused): such an origin is not added back to
// CoRegressed (WithOrigin). It stays the evidence's origin, and the gate
// reads its release ledger.
func UnlessRefused(o *contracts.FailureOrigin, refused []string) *contracts.FailureOrigin {
	if o == nil || !slices.Contains(refused, o.Service) {
		return o
	}
	return nil
}
