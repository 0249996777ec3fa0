package tools

import (
	"fmt"
	"slices"
	"strings"

	"agentk/contracts"

	"agentk/services/sandbox/internal/facts"
)

// confinedCallees are the failing dependencies whose failures
// facts.VersionConfined confines to the running version's calls
// (fu.confined) and that pass the callee's own checks, and the services
// they name: the callee is the origin of the service's failures (its
// server spans fail beneath the service's calls), and, when it regressed
// with the service, its other callers' errors did not rise and its latency
// held (facts.OthersQuiet, every failed call of the service taken off;
// facts.LatencyHeld); and the service's failed calls to it do not mostly
// say it is out of capacity or unavailable (facts.CapacityPeers). Anything
// it cannot read keeps the peer. The services
// leave j's shared causes for its downstream ones.
func confinedCallees(c Call, st overviewState, fu followUps, j *facts.Judged) (peers, services []string) {
	if fu.origin == nil || st.onset.At == nil {
		return nil, nil
	}
	svc := fu.origin.Service
	for _, p := range fu.confined {
		if calleeEffect(c, st, fu, p) {
			peers = append(peers, p)
		}
	}
	if len(peers) > 0 || newCallOrigin(c, st, fu) {
		services = []string{svc}
	}
	j.Shared, j.Downstream = withoutPeers(j.Shared, services), append(j.Downstream, services...)
	return peers, services
}

// newCallOrigin reports whether the origin is a peer whose failures
// facts.NewCallFailures named the release's own new calls (fu.newCalls)
// and which passes calleeEffect's checks: the callee fails only on the
// calls the running version makes anew, from its failing requests (issue
// 35's "calls from the failing spans"), and is their effect, not a shared
// cause.
func newCallOrigin(c Call, st overviewState, fu followUps) bool {
	return slices.ContainsFunc(fu.newCalls, func(p string) bool { return calleeEffect(c, st, fu, p) })
}

// calleeEffect reports whether peer p of the origin (fu.origin, not the
// service itself) is the callee where the service's failures begin
// (fu.calleePeers), whose failed calls do not mostly say it is out of
// capacity or unavailable (facts.CapacityPeers), and, when it regressed
// with the service, whose other callers' errors did not rise and whose
// latency held (facts.OthersQuiet, every failed call of the service taken
// off; facts.LatencyHeld). Anything it cannot read is false.
func calleeEffect(c Call, st overviewState, fu followUps, p string) bool {
	svc := fu.origin.Service
	if !slices.Contains(fu.calleePeers, p) || slices.Contains(fu.capacity, p) || svc == c.Service {
		return false
	}
	if !slices.Contains(st.alt.CoRegressed, svc) {
		return true
	}
	o, ok := st.alt.Onsets[svc]
	return ok && facts.OthersQuiet(facts.CallsFellOf(st.alt.Series[svc], o), facts.CallsFellOf(st.peers[p], o)) && facts.LatencyHeld(st.alt.Series[svc], c.StartsAt)
}

// confinedLine says which callees fail only on the running version's calls.
func confinedLine(svc string, r *contracts.ReleaseErrors, peers []string) string {
	if len(peers) == 0 || r == nil {
		return ""
	}
	version := r.Version
	return fmt.Sprintf("callees failing only on %s's calls from version %q since the onset (its other versions' calls of the same kind succeed in the same minutes; the callee is where the failures begin and answers its other callers as before): %s (the effect of the release, not a failing dependency or a shared cause)",
		svc, version, strings.Join(peers, ", "))
}
