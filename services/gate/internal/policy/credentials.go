package policy

import (
	"slices"
	"strconv"
	"time"

	"agentk/contracts"
	"agentk/platform/mutant"
)

// A refused credential after an accepted one (e2e/incidents-heldout7's
// lm7-trap-expired-token-search-api: search-api 8.4.2 called its partner
// with its token for two minutes after its release, then the token expired
// and every call answered 401; persona:quality's config_regression was
// rolled back). A 401 is what a configuration release that broke the
// credential answers too, and nothing in the telemetry tells the two apart
// (docs/eval/generalisation.md, session 18, h47token). The gate therefore
// denies the configuration release when the running version's credential
// was accepted by the peer after that version started (the ledger, not
// the recording's start): a delayed configuration (a client secret changed
// while a cached access token lives on) is then denied too, a missed
// rollback and never a wrong one.
const (
	// MinAcceptedCalls is how many kept calls the running version must
	// have made to the peer, none failed, in the whole minutes the gate
	// keeps: with none of 5 refused, a credential refused half the time is
	// ruled out at 3%.
	MinAcceptedCalls = 5
)

// acceptedCredential returns a reason for every peer of peers (svc's
// FailingDependencies) that refuses svc's credential since the onset
// (contracts.Facts.AuthRefusedDependencies) when the running version's
// calls to it were accepted, at least MinAcceptedCalls of them without a
// failure, in whole minutes that began at or after the ledger's start of
// that version, in which no other version served, and that ended by the
// peer's failure start (contracts.Facts.CallsSinceRelease). It reads no
// minute before the ledger's start: history before the release moves
// nothing, and a recording that begins after it loses only the minutes it
// does not hold.
func acceptedCredential(in Input, svc string, ev []contracts.EvidenceV1, peers []string, inputs map[string]string) []string {
	cur, ok := runningRelease(in.Ledger)
	if !ok || cur.DeployedAt.IsZero() || mutant.Off(mutant.GateConfigAcceptedCredential) {
		return nil
	}
	return perCalledPeer(ev, svc, peers, "accepted_credential.", inputs, func(f contracts.Facts) []contracts.CallsSinceRelease { return f.CallsSinceRelease },
		func(f contracts.Facts, c contracts.CallsSinceRelease) (string, string) {
			if !slices.Contains(f.AuthRefusedDependencies, c.Peer) {
				return "", ""
			}
			why := accepted(c, cur)
			if why == "" {
				return "", ""
			}
			return why, "calls from " + svc + " to " + c.Peer + " " + why + ": the credential " + strconv.Quote(cur.Version) + " presents was accepted after its release, " +
				"so a credential that lapsed (an expired token) cannot be told from a configuration release of " + svc + " that broke it, and a rollback is not allowed on that diagnosis"
		})
}

// perCalledPeer is the reading acceptedCredential and
// answeredBeforeSlowing share: for svc's evidence, every peer of peers
// among the calls of (a CallsSinceRelease list of the facts) judged once,
// its first record judged that says why (non-empty) recorded in inputs
// under prefix and the peer, and its reason returned.
func perCalledPeer(ev []contracts.EvidenceV1, svc string, peers []string, prefix string, inputs map[string]string,
	of func(contracts.Facts) []contracts.CallsSinceRelease, judge func(contracts.Facts, contracts.CallsSinceRelease) (why, reason string)) []string {
	var reasons, seen []string
	for _, e := range ev {
		if e.Service != svc {
			continue
		}
		for _, c := range of(e.Facts) {
			if slices.Contains(seen, c.Peer) || !slices.Contains(peers, c.Peer) {
				continue
			}
			if why, reason := judge(e.Facts, c); why != "" {
				seen = append(seen, c.Peer)
				inputs[prefix+c.Peer] = why
				reasons = append(reasons, reason)
			}
		}
	}
	return reasons
}

// accepted describes c's kept minutes when they hold at least
// MinAcceptedCalls calls; "" otherwise.
func accepted(c contracts.CallsSinceRelease, cur contracts.Release) string {
	calls, n, first, last, ok := keptMinutes(c, cur)
	if !ok {
		return ""
	}
	return "were accepted after " + strconv.Quote(cur.Version) + " started (the ledger: " + ttoa(cur.DeployedAt) + "): " + ftoa(calls) + " calls, none failed, in " +
		strconv.Itoa(n) + " whole minute(s) from " + ttoa(first) + " to " + ttoa(last.Add(time.Minute)) + " in which no other version served, then refused its credential (HTTP 401, 403, 407, gRPC UNAUTHENTICATED or PERMISSION_DENIED, a database refusing the login, or a TLS handshake refusing a lapsed certificate) from " +
		ttoa(c.FailureStart) + ", " + c.FailureStart.Sub(cur.DeployedAt).Round(time.Second).String() + " after the release"
}

// keptMinutes sums c's minutes that began at or after the ledger's start of
// cur, ended by c.FailureStart, held calls and in which no other version
// served: their calls, how many, the first and the last. ok says they are
// enough to judge by, for acceptedCredential and answeredBeforeSlowing
// alike: c's failure began at or after that start and they hold at least
// MinAcceptedCalls calls (a NaN sum is not below it: these readings only
// ever deny, and one judges on it as it always did).
func keptMinutes(c contracts.CallsSinceRelease, cur contracts.Release) (calls float64, n int, first, last time.Time, ok bool) {
	if c.FailureStart.Before(cur.DeployedAt) {
		return 0, 0, time.Time{}, time.Time{}, false
	}
	for _, m := range c.Minutes {
		if m.At.Before(cur.DeployedAt) || m.At.Add(time.Minute).After(c.FailureStart) || m.Calls <= 0 || m.OtherVersions > 0 {
			continue
		}
		if n == 0 || m.At.Before(first) {
			first = m.At
		}
		if m.At.After(last) {
			last = m.At
		}
		calls, n = calls+m.Calls, n+1
	}
	return calls, n, first, last, n != 0 && !(calls < MinAcceptedCalls)
}
