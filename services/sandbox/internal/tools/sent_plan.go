package tools

import (
	"strconv"
	"strings"
	"time"

	"agentk/contracts"
	"agentk/services/sandbox/internal/compact"
	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"
)

// What the release sends to a slowed dependency (facts.SentChanges): the
// service's calls to its slow dependencies before the running version
// first served and from then up to the onset, whole rows (their
// attributes), asked last in the overview's third stage, after the new
// calls' comparison.

// SentCalls bounds the rows of each side: the earlier versions' latest
// calls before the release, the running version's first calls after it.
const SentCalls = 400

// sentPeers are the slow dependencies whose asks are compared, by the peer
// key that names them (PeerKeys' order); none without a release and an
// onset.
func sentPeers(st overviewState) map[string][]string {
	if st.release == nil || st.release.FirstSeen.IsZero() || st.onset.At == nil || !st.release.FirstSeen.Before(*st.onset.At) {
		return map[string][]string{}
	}
	var peers []string
	for _, d := range st.slowDeps {
		peers = append(peers, d.Peer)
	}
	return byPeerKey(st.keyOf, peers)
}

// sentQueries are, for each peer key of sentPeers, the service's outbound
// spans to those peers in the onset's baseline before the running
// version's first served minute (the latest SentCalls) and from that minute
// to a minute past the onset (the first SentCalls): two raw queries a
// key, before first. Optional: a SigNoz that refuses them leaves the
// comparison out, and the denial it would lift stands.
func sentQueries(c Call, st overviewState) []Query {
	byKey := sentPeers(st)
	var qs []Query
	for _, pk := range PeerKeys {
		peers := byKey[pk]
		if len(peers) == 0 {
			continue
		}
		filter := and(serviceFilter(c.Service), outboundFor(pk), peerFilter(pk), quotedIn(pk, peers))
		q := func(name string, from, to time.Time, dir string) Query {
			return Query{Name: name + "_" + pk, Optional: true, Request: signoz.NewRequest(signoz.RequestRaw, from.UnixMilli(), to.UnixMilli(), signoz.BuilderQuery{Name: "A", Signal: signoz.SignalTraces,
				Filter: signoz.Filter{Expression: filter}, Limit: SentCalls, Order: []signoz.OrderBy{{Key: signoz.OrderKey{Name: "timestamp"}, Direction: dir}}})}
		}
		qs = append(qs, q("sent_before", st.onset.BaselineFrom, st.release.FirstSeen, "desc"), q("sent_since", st.release.FirstSeen, st.onset.At.Add(time.Minute), "asc"))
	}
	return qs
}

// readSentChanges reads sentQueries' answers (resps, in their order) and
// returns the larger asks (facts.SentChanges) of the slow dependencies of
// slow (those the overview keeps) against onset (the refined one); a
// refused, missing or unreadable answer compares nothing for its key (the
// denial it would lift stands).
func readSentChanges(c Call, st overviewState, resps []signoz.Response, slow []string, onset *time.Time) []contracts.SentChange {
	byKey := sentPeers(st)
	if len(byKey) == 0 || onset == nil {
		return nil
	}
	var calls []facts.SentCall
	i := 0
	for _, pk := range PeerKeys {
		if len(byKey[pk]) == 0 {
			continue
		}
		if i+1 >= len(resps) {
			break
		}
		before, since := resps[i], resps[i+1]
		i += 2
		if before.Refused != "" || since.Refused != "" {
			continue
		}
		rows, err := rawRows([]signoz.Response{before, since}, 0)
		more, err2 := rawRows([]signoz.Response{before, since}, 1)
		if err != nil || err2 != nil {
			continue
		}
		calls = append(calls, facts.SentCallsOf(append(rows, more...), c.Service, byKey[pk], PeerKeys)...)
	}
	return facts.SentChanges(calls, slow, st.release.Version, st.release.FirstSeen, *onset)
}

// sentLine says which sizes the running version asks of its slow
// dependencies larger than the earlier versions did, from its first calls
// to the onset.
func sentLine(svc string, r *contracts.ReleaseErrors, ch []contracts.SentChange) string {
	if len(ch) == 0 || r == nil {
		return ""
	}
	var parts []string
	for _, x := range ch {
		parts = append(parts, x.Peer+" "+x.Attribute+": median "+fmtF(x.BeforeMedian)+" -> "+fmtF(x.AfterMedian)+" ("+strconv.Itoa(x.BeforeCalls)+" calls before, "+
			strconv.Itoa(x.AfterCalls)+" since; Mann-Whitney z "+fmtF(x.Z)+")")
	}
	return "slow dependencies asked more by " + svc + " " + compact.Quote(r.Version) + " from its first calls, before they slowed, than by the earlier versions: " + strings.Join(parts, "; ")
}
