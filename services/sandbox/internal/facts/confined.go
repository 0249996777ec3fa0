package facts

import (
	"math"
	"slices"
	"time"

	"agentk/platform/mutant"
	"agentk/platform/stats"
	"agentk/services/sandbox/internal/signoz"
)

// Failures confined to the running version (issue 35 item 5): a callee
// that fails on the running version's calls while the other versions'
// calls of the same kind to it, sent in the same minutes, succeed, fails
// because of what the release sends it. heldout7's lm7-back-to-back-billing-api:
// billing-api 6.1.1 sends renewal amounts as decimal strings and ledger-svc
// panics (gRPC INTERNAL) on 71 of its 128 PostEntry calls, while the six
// PostEntry calls the last 6.1.0 task sent in the same minute all succeed;
// ledger-svc, unchanged since November, was read as a failing dependency
// and a shared cause, and the oracle's rollback was denied. A dependency
// that fails by itself cannot tell its callers' versions apart: an outage
// during a rollout fails the old version's calls too (heldout8's
// spanner-mid-rollout twin), and an outage after the rollout leaves no
// other version to compare with, so both stay failing dependencies.
//
// The judgement reads the new-call queries' answers (the calls by call key
// and service.version since the onset) and fails closed: the running
// version's failed calls number at least MinFaultCalls; the other
// versions' calls of the keys on which the running version failed number
// at least MinConfinedCalls; and so few of them failed that a callee
// failing every caller's calls at the running version's share would fail
// fewer only with chance under ConfinedLevel (binomial lower tail). The
// tools layer adds the second source: the callee is the origin of the
// service's failures (its own server spans fail beneath the service's
// calls, so the calls reached it and failed in its code, not at a refused
// or pinned connection), its other callers' errors did not rise and its
// latency held (OthersQuiet, LatencyHeld); and the service's failed calls
// to it do not mostly say it is out of capacity or unavailable
// (CapacityPeers).
const (
	MinConfinedCalls = 5
	ConfinedLevel    = 0.01
)

// VersionConfined reports whether a peer's failures since the onset are
// confined to the running version's calls: calls are the peer's calls by
// key, where Calls and Errors count every version since the onset and
// OtherCalls and OtherErrors those of the other versions.
func VersionConfined(calls []PeerCall) bool {
	var run, runErr, other, otherErr float64
	for _, c := range calls {
		e := c.Errors - c.OtherErrors
		if e <= 0 {
			continue
		}
		run, runErr = run+c.Calls-c.OtherCalls, runErr+e
		other, otherErr = other+c.OtherCalls, otherErr+c.OtherErrors
	}
	if runErr < MinFaultCalls || run <= 0 {
		return false
	}
	if mutant.Off(mutant.SandboxConfinedOtherCalls) {
		return otherErr == 0
	}
	if other < MinConfinedCalls {
		return false
	}
	share := runErr / run
	n, k := int(math.Round(other)), int(math.Round(otherErr))
	// P(X <= k) for X ~ Binomial(n, share).
	return 1-stats.BinomTail(k+1, n, share) < ConfinedLevel
}

// FailingCalleePeers returns the peer names (keys in order, as
// DependencyFaults names them) that svc's failed client spans (calls, the
// dependency_faults answer) carry where a failing span of callee lies
// directly beneath them in the failing traces read for the origin (traces):
// the names under which svc calls the callee where the callee's own spans
// fail. A peer name that no failing span of callee answered is not one,
// whatever it looks like (an ECS or Consul name, an IP).
func FailingCalleePeers(traces, calls []signoz.RawRow, svc, callee string, keys []string) []string {
	type call struct{ tid, id string }
	peerOf := map[call]string{}
	for _, r := range calls {
		tid, s, ok := readSpan(r)
		if !ok || s.service != svc || !outboundKind(r.Data) {
			continue
		}
		for _, k := range keys {
			if p := AttrString(r.Data, k); p != "" {
				peerOf[call{tid, s.id}] = p
				break
			}
		}
	}
	var out []string
	for _, r := range traces {
		tid, s, ok := readSpan(r)
		if !ok || s.service != callee || !s.err || s.parent == "" {
			continue
		}
		if p, ok := peerOf[call{tid, s.parent}]; ok && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// OthersQuietLevel is the significance level at which a callee's failures
// on its other callers' calls since its onset rose above its baseline's
// (Poisson upper tail, the baseline's rate taken as (errors+1) a minute
// so that a baseline without a failure admits one since).
const OthersQuietLevel = 0.05

// OthersQuiet reports whether a callee's failures that are not the
// affected service's failed calls to it (OthersFailed, every one of them
// taken off) did not rise significantly since its onset: a callee that
// fails by itself fails its other callers too. A callee with no other
// caller has none, which says nothing against it: the confinement to the
// running version's calls is then the evidence. Unmeasured is false.
func OthersQuiet(callee, calls *CallsFell) bool {
	since, before, ok := OthersFailed(callee, calls, 1)
	if !ok {
		return false
	}
	lambda := (before + 1) / callee.MinutesBefore * callee.MinutesSince
	return since < 1 || 1-poissonAtMost(since-1, lambda) >= OthersQuietLevel
}

// capacityStatuses are the HTTP statuses and grpcCapacity the gRPC codes by
// which a callee says it is out of capacity or unavailable, not that it
// failed on the request: a rate limit, an overload or an outage can fall
// on one caller's calls only (a quota per client key, the new pods'
// connections), so a callee answering so stays a failing dependency
// however its failures split by version (refused.go's answer class;
// TestRefusedCalleeIsNoSharedCause's 429 and 503).
var (
	capacityStatuses = []int{429, 502, 503, 504}
	grpcCapacity     = []int{8, 14}
)

// capacityAnswer reports whether a failed outbound span says the callee is
// out of capacity or unavailable: one of capacityStatuses or grpcCapacity,
// or, with neither status, an error.type or status message by which the
// peer closed, refused or could not serve the call (peerError).
func capacityAnswer(d map[string]any) bool {
	if v, http, ok := statusOf(d); ok {
		if http {
			return slices.Contains(capacityStatuses, int(v))
		}
		return slices.Contains(grpcCapacity, int(v))
	}
	return peerError(d)
}

// CapacityPeers returns the peers among peers to which svc's failed
// outbound spans since the onset, in rows, number at least MinFaultCalls
// and of which more than half say the peer is out of capacity or
// unavailable (capacityAnswer). Peers are named as DependencyFaults names
// them.
func CapacityPeers(rows []signoz.RawRow, svc string, onset time.Time, peers, keys []string) []string {
	if mutant.Off(mutant.SandboxConfinedAnswerClass) {
		return nil
	}
	return judgeFaults(rows, svc, onset, peers, keys, capacityAnswer)
}
