package policy

import (
	"slices"
	"strconv"
	"time"

	"agentk/contracts"
	"agentk/platform/mutant"
)

// MinCleanCalls is how many kept calls the running version must have made
// to a failing peer, at the peer's usual error rate, after the ledger's
// start of that version and before the peer's failure onset, for its
// configuration to count as having reached the peer correctly.
const MinCleanCalls = 10

// cleanCallsBeforeOnset returns a reason for every peer of peers (svc's
// FailingDependencies) that the running version called at the peer's usual
// error rate in at least one whole minute that began at or after the
// ledger's start of that version and ended at or before the peer's failure
// onset and in which no other version served an entry span, with at least
// MinCleanCalls calls in those minutes (contracts.Facts.CallsSinceRelease). A configuration release breaks the
// calls to a dependency (a wrong host, refused credentials) from the calls
// it makes with that configuration; the running configuration that already
// reached the peer did not break it later, and the exemption of
// dependencyCauses does not hold. It only denies: a configuration whose
// effect is delayed (a cached token) costs a rollback, never allows a wrong
// one. A minute in which a rolling update's old pods still served is left
// out: the peer series cannot tell their calls from the running version's
// (kf6-back-to-back-slots-warehouse-api: 3.9.6's clean SQL calls in the
// minute 4.0.1 rolled out would have denied a right rollback).
// lm7-trap-expired-token-search-api: 8.4.2 alone called its partner 10
// times without a failure in the minute before the partner's token expired,
// and persona:quality's config_regression was rolled back.
func cleanCallsBeforeOnset(in Input, svc string, ev []contracts.EvidenceV1, peers []string, inputs map[string]string) []string {
	cur, ok := runningRelease(in.Ledger)
	if !ok || cur.DeployedAt.IsZero() || mutant.Off(mutant.GateConfigCleanCalls) {
		return nil
	}
	var reasons []string
	seen := map[string]bool{}
	for _, e := range ev {
		if e.Service != svc {
			continue
		}
		for _, c := range e.Facts.CallsSinceRelease {
			if seen[c.Peer] || !slices.Contains(peers, c.Peer) {
				continue
			}
			if why := cleanCalls(c, cur); why != "" {
				seen[c.Peer] = true
				inputs["clean_calls."+c.Peer] = why
				reasons = append(reasons, "calls from "+svc+" to "+c.Peer+" "+why+": the configuration "+strconv.Quote(cur.Version)+" runs reached "+c.Peer+
					" correctly, so a failing dependency, not a configuration release of "+svc+", explains the regression")
			}
		}
	}
	return reasons
}

// cleanCalls describes c's minutes that began at or after cur's start and
// ended at or before the peer's onset when they hold at least
// MinCleanCalls calls at the peer's usual error rate (no more failures than
// twice the baseline's rate predicts, plus one); "" otherwise.
func cleanCalls(c contracts.CallsSinceRelease, cur contracts.Release) string {
	var calls, errs float64
	var first, last time.Time
	n := 0
	for _, m := range c.Minutes {
		if m.At.Before(cur.DeployedAt) || m.At.Add(time.Minute).After(c.Onset) || m.Calls <= 0 || m.OtherVersions > 0 {
			continue
		}
		if n == 0 || m.At.Before(first) {
			first = m.At
		}
		if m.At.After(last) {
			last = m.At
		}
		calls, errs, n = calls+m.Calls, errs+m.Errors, n+1
	}
	if n == 0 || calls < MinCleanCalls {
		return ""
	}
	base := 0.0
	if c.BaselineCalls > 0 {
		base = c.BaselineErrors / c.BaselineCalls
	}
	if errs > 2*base*calls+1 {
		return ""
	}
	return "succeeded at the peer's usual error rate after " + strconv.Quote(cur.Version) + " started (the ledger: " + ttoa(cur.DeployedAt) + "): " +
		ftoa(calls) + " calls, " + ftoa(errs) + " failed (baseline " + ftoa(100*round3(base)) + "%), in " + plural(n, "whole minute") + " from " + ttoa(first) +
		" to " + ttoa(last.Add(time.Minute)) + ", before " + c.Peer + " began failing at " + ttoa(c.Onset)
}

// round3 rounds f to three decimals.
func round3(f float64) float64 { return float64(int64(f*1000+0.5)) / 1000 }

// plural is n and what, with an s unless n is 1.
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}
