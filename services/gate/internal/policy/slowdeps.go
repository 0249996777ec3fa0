package policy

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"agentk/contracts"
	"agentk/platform/mutant"
)

// slowDependencies returns a reason when the sandbox found a dependency of
// svc that slowed at the onset at its usual call rate, by enough to explain
// most of svc's added latency (contracts.Facts.SlowDependencies), and the
// diagnosis is not one such a slowing fits; it records the peers in inputs.
// A model that blames a deploy minutes before is the trap (world
// s6174-w037, persona:marker's bad_release). Such a slowing fits
// changeClasses: a release of prompts or of configuration changes what the
// service asks the dependency (longer answers from a model, more neighbours
// from an index) without changing how often it asks
// (hw-prompt-verbose-faq-bot: a verbose prompt doubles the model calls'
// latency); its change must then show otherwise than by the service's new
// timeouts on them (changeReasons, waitedOn). A bad release's own code and a retry storm's multiplied calls
// do not slow the calls they leave as they were.
func slowDependencies(in Input, svc string, ev []contracts.EvidenceV1, inputs map[string]string) []string {
	peers := dependencyPeers(svc, ev, func(f contracts.Facts) []string { return f.SlowDependencies })
	if len(peers) == 0 {
		return nil
	}
	inputs["slow_dependencies"] = strings.Join(peers, ",")
	if in.Review.Best != nil && slices.Contains(changeClasses, in.Review.Best.Class) {
		return answeredBeforeSlowing(in, svc, ev, peers, inputs)
	}
	return []string{"calls from " + svc + " to " + strings.Join(peers, ", ") + " slowed at the onset at their usual rate, by most of " + svc +
		"'s added latency: a slow dependency, not a release of " + svc + ", explains the regression"}
}

// answeredBeforeSlowing returns a reason for every peer of peers (svc's
// SlowDependencies) that answered the running version's calls at its
// baseline latency after that version started and before the onset, where
// it slowed (contracts.Facts.CallsBeforeSlowing): at least MinAcceptedCalls
// calls in whole minutes that began at or after the ledger's start of that
// version, in which no other version served, and that ended by the onset. A
// prompt or configuration changes what the service asks from the version's
// first request; a peer that answered the same version's asks as before and
// slowed minutes later slowed by itself
// (e2e/incidents-heldout13-twins' pr13tw-trap-opensearch-yellow-ratio-catalog:
// an OpenSearch data node left three minutes after catalog's release, the
// searches timed out with shards failed, persona:quality's
// config_regression was rolled back on main). Unless those very calls
// asked the peer for more than the earlier versions' did (sentMore): then
// the release changed what it asks, and the peer answering its first
// larger asks at the baseline before it slowed (a model's queue filling,
// a cache of the old asks expiring) does not say it slowed by itself. A
// configuration whose effect on a dependency is delayed and shows in no
// size of its asks is denied: a missed rollback, never a wrong one.
func answeredBeforeSlowing(in Input, svc string, ev []contracts.EvidenceV1, peers []string, inputs map[string]string) []string {
	cur, ok := runningRelease(in.Ledger)
	if !ok || cur.DeployedAt.IsZero() || mutant.Off(mutant.GateChangeSlowAnswered) {
		return nil
	}
	return perCalledPeer(ev, svc, peers, "answered_before_slowing.", inputs, func(f contracts.Facts) []contracts.CallsSinceRelease { return f.CallsBeforeSlowing },
		func(f contracts.Facts, c contracts.CallsSinceRelease) (string, string) {
			calls, n, first, last, ok := keptMinutes(c, cur)
			if !ok {
				return "", ""
			}
			if more := sentMore(f, c.Peer, cur.Version); more != "" {
				inputs["sent_more."+c.Peer] = more
				return "", ""
			}
			why := "answered " + ftoa(calls) + " calls of " + strconv.Quote(cur.Version) + " in " + strconv.Itoa(n) + " whole minute(s) from " + ttoa(first) + " to " + ttoa(last.Add(time.Minute)) +
				" after it started (the ledger: " + ttoa(cur.DeployedAt) + "), in which no other version served, before it slowed at the onset " + ttoa(c.FailureStart)
			return why, svc + "'s calls to " + c.Peer + " slowed at the onset at their usual rate; the peer " + why +
				", asked no more than before (no size of the calls larger since the release): what the release asks of it did not change, so a slow dependency, not a " + in.Review.Best.Class + " of " + svc + ", explains the regression"
		})
}

// MinSentZ is the Mann-Whitney z (one-sided, chance under 0.001) a larger
// ask of the slowed peer must reach for the gate, whatever the sandbox
// was configured with: the sandbox's facts.SentZ, kept twice on purpose so
// that a sandbox judging looser cannot lift a denial.
const MinSentZ = 3.09

// sentMore describes the first size (contracts.Facts.SentChanges) that the
// running version's calls to peer asked larger than the earlier versions'
// calls beyond chance (MinSentZ), from its first calls to the onset; ""
// when none. Only the slowed peer's own asks count: a release that asks
// another dependency for more says nothing about why this one slowed
// (e2e/incidents-handwritten's hw-trap-llm-prompt-search-slowed; mutant
// gate.change_slow_sent_peer reads any peer's).
func sentMore(f contracts.Facts, peer, version string) string {
	for _, x := range f.SentChanges {
		if (x.Peer != peer && !mutant.Off(mutant.GateChangeSlowSentPeer)) || x.AfterMedian <= x.BeforeMedian || x.Z < MinSentZ {
			continue
		}
		return x.Peer + "'s calls asked more since " + strconv.Quote(version) + " started, from its first calls to the onset: " + x.Attribute + " median " + ftoa(x.BeforeMedian) + " -> " + ftoa(x.AfterMedian) +
			" (" + strconv.Itoa(x.BeforeCalls) + " calls of the earlier versions, " + strconv.Itoa(x.AfterCalls) + " since; Mann-Whitney z " + ftoa(x.Z) + ")"
	}
	return ""
}
