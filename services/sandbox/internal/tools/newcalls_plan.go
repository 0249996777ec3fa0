package tools

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"agentk/contracts"
	"agentk/services/sandbox/internal/compact"
	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"
)

// A release's own new calls (issue 35 item 5; the judgement is
// facts.NewCallFailures): the failing dependencies' calls by call key and
// service.version on both sides of the onset, asked last in the overview's
// third stage, after dependency_faults.

// NewCallKeys are the attributes of an outbound span that say which call it
// made, most specific first: the statement text (db.query.text, the older
// db.statement), the RPC's method, the HTTP route or url template, the
// URL's path (url.full, the older http.url: read through facts.CallPath,
// urlCallKeys), and last the span's own name, which every span carries.
var NewCallKeys = []string{"db.query.text", "db.statement", "rpc.method", "http.route", "url.template", "url.full", "http.url", "name"}

// urlCallKeys are the NewCallKeys whose values are URLs, read as their
// path (facts.CallPath) and only while a peer's paths are kinds of calls
// (facts.ManyPaths).
var urlCallKeys = []string{"url.full", "http.url"}

// MaxNewCallPeers bounds the failing dependencies whose calls are read by
// key (the first ones in failingDeps' order); the others stay failing.
// NewCallGroups bounds the groups (key, version, peer) of each answer: an
// answer that fills it may have left an old key out, and is not read.
const (
	MaxNewCallPeers = 3
	NewCallGroups   = 200
)

// newCallKey is the FieldKey a call key is grouped by.
func newCallKey(k string) signoz.FieldKey {
	if k == "name" {
		return span("name", "string")
	}
	return signoz.FieldKey{Name: k, FieldContext: "attribute", FieldDataType: "string"}
}

// newCallPeers are the failing dependencies whose calls are read by key,
// by the peer key that names them (PeerKeys' order), none without a release
// to compare with.
func newCallPeers(st overviewState) map[string][]string {
	if st.release == nil || st.onset.At == nil {
		return map[string][]string{}
	}
	return byPeerKey(st.keyOf, st.failingDeps[:min(len(st.failingDeps), MaxNewCallPeers)])
}

// byPeerKey groups peers by the peer key that names them (keyOf); a peer
// no key names is left out.
func byPeerKey(keyOf map[string]string, peers []string) map[string][]string {
	out := map[string][]string{}
	for _, p := range peers {
		if k := keyOf[p]; k != "" {
			out[k] = append(out[k], p)
		}
	}
	return out
}

// newCallQueries are, for each peer key of newCallPeers and each call key,
// the service's outbound spans to those peers grouped by call key,
// service.version and peer, counted with their errors, in the baseline and
// since the onset (scalar; two queries a key, baseline first).
func newCallQueries(c Call, st overviewState) []Query {
	byKey := newCallPeers(st)
	var qs []Query
	for _, pk := range PeerKeys {
		peers := byKey[pk]
		if len(peers) == 0 {
			continue
		}
		filter := and(serviceFilter(c.Service), outboundSpans(), peerFilter(pk), quotedIn(pk, peers))
		version := signoz.FieldKey{Name: "service.version", FieldContext: "resource", FieldDataType: "string"}
		peer := signoz.FieldKey{Name: pk, FieldContext: "attribute", FieldDataType: "string"}
		aggs := []signoz.Aggregation{{Expression: "count()"}, {Expression: "countIf(has_error = true)"}}
		for _, ck := range NewCallKeys {
			q := func(side string, from, to time.Time) Query {
				return Query{Name: "new_calls_" + side + "_" + pk + "_" + ck, Optional: true, Request: signoz.NewRequest(signoz.RequestScalar, from.UnixMilli(), to.UnixMilli(),
					signoz.BuilderQuery{Name: "A", Signal: signoz.SignalTraces, Filter: signoz.Filter{Expression: filter}, Aggregations: aggs,
						GroupBy: []signoz.FieldKey{newCallKey(ck), version, peer}, Limit: NewCallGroups, Order: desc("count()")})}
			}
			qs = append(qs, q("baseline", st.onset.BaselineFrom, *st.onset.At), q("since", *st.onset.At, c.Incident.To))
		}
	}
	return qs
}

// keyedCalls are one peer's calls under one call key: by key value.
type keyedCalls = map[string]*facts.PeerCall

// readNewCalls adds one answer of newCallQueries (rows) to by (peer → call
// key → value), on its side; false when the answer cannot be read whole
// (refused, or as many groups as NewCallGroups).
func readNewCalls(resp signoz.Response, ck, pk, running string, since bool, by map[string]map[string]keyedCalls) (bool, error) {
	if resp.Refused != "" {
		return false, nil
	}
	rows, err := scalarRows([]signoz.Response{resp}, 0)
	if err != nil {
		return false, err
	}
	if len(rows) >= NewCallGroups {
		return false, nil
	}
	for _, r := range rows {
		key, ver, peer := groupString(r, ck), groupString(r, "service.version"), groupString(r, pk)
		if slices.Contains(urlCallKeys, ck) {
			key = facts.CallPath(key)
		}
		if key == "" || peer == "" || by[peer] == nil {
			continue
		}
		if by[peer][ck] == nil {
			by[peer][ck] = keyedCalls{}
		}
		pc := by[peer][ck][key]
		if pc == nil {
			pc = &facts.PeerCall{Key: key}
			by[peer][ck][key] = pc
		}
		n, e := r.aggs[0], r.aggs[1]
		switch {
		case since && ver != running:
			pc.Calls, pc.Errors, pc.OtherCalls, pc.OtherErrors = pc.Calls+n, pc.Errors+e, pc.OtherCalls+n, pc.OtherErrors+e
		case since:
			pc.Calls, pc.Errors = pc.Calls+n, pc.Errors+e
		case ver != running:
			pc.BaseCalls, pc.BaseErrors = pc.BaseCalls+n, pc.BaseErrors+e
		}
	}
	return true, nil
}

// groupString is a table row's group value of key, as text.
func groupString(r tableRow, key string) string {
	v, ok := r.groups[key]
	if !ok || v == nil {
		return ""
	}
	return fmt.Sprint(v)
}

// newCallFailures reads newCallQueries' answers (resps, in their order)
// and returns the failing dependencies facts.NewCallFailures names the
// release's own calls, in failingDeps' order, and apart those whose
// failures facts.VersionConfined confines to the running version's calls.
// Each peer is read under the call key that covers most of its calls since
// the onset (the most specific on a tie, facts.WidestKey); a key whose
// either answer is unreadable is left out. Answers fewer than planned (a
// stage cut short) compare nothing, and cut says so for the overview.
func newCallFailures(c Call, st overviewState, resps []signoz.Response) (newCalls, confined []string, cut string, err error) {
	byKey := newCallPeers(st)
	by := map[string]map[string]keyedCalls{}
	for _, peers := range byKey {
		for _, p := range peers {
			by[p] = map[string]keyedCalls{}
		}
	}
	i := 0
	for _, pk := range PeerKeys {
		if len(byKey[pk]) == 0 {
			continue
		}
		for _, ck := range NewCallKeys {
			if i+1 >= len(resps) {
				return nil, nil, fmt.Sprintf("the new calls' comparison was not read: %d of its %d answers came back", len(resps), len(newCallQueries(c, st))), nil
			}
			ok, err := readBothSides(resps[i], resps[i+1], ck, pk, st.release.Version, by)
			if err != nil {
				return nil, nil, "", err
			}
			if !ok {
				for p := range by {
					delete(by[p], ck)
				}
			}
			i += 2
		}
	}
	for p := range by {
		for _, ck := range urlCallKeys {
			if by[p][ck] != nil && facts.ManyPaths(by[p][ck]) {
				delete(by[p], ck)
			}
		}
	}
	baseMin, sinceMin := facts.ServedMinutes(st.minutes, st.onset.BaselineFrom, *st.onset.At), facts.ServedMinutes(st.minutes, *st.onset.At, c.Incident.To)
	for _, p := range st.failingDeps {
		calls := facts.WidestKey(by[p], NewCallKeys)
		switch {
		case facts.NewCallFailures(calls, baseMin, sinceMin):
			newCalls = append(newCalls, p)
		case facts.VersionConfined(calls):
			confined = append(confined, p)
		}
	}
	return newCalls, confined, "", nil
}

// readBothSides reads a call key's baseline and since answers; false when
// either is unreadable.
func readBothSides(base, since signoz.Response, ck, pk, running string, by map[string]map[string]keyedCalls) (bool, error) {
	ok, err := readNewCalls(base, ck, pk, running, false, by)
	if err != nil || !ok {
		return false, err
	}
	return readNewCalls(since, ck, pk, running, true, by)
}

// newCallLine says which failing dependencies fail only on the running
// version's new calls, or that the comparison was cut short (cut).
func newCallLine(svc string, r *contracts.ReleaseErrors, peers []string, cut string) string {
	if cut != "" {
		return cut
	}
	if len(peers) == 0 || r == nil {
		return ""
	}
	version := compact.Quote(r.Version)
	return "dependencies whose failures since the onset are " + svc + "'s new calls (call keys no earlier version sent; its other calls to them succeed as before): " +
		strings.Join(peers, ", ") + " (the effect of " + version + ", not a failing dependency)"
}

// withoutPeers is deps less the peers of drop, in order.
func withoutPeers(deps, drop []string) []string {
	return slices.DeleteFunc(slices.Clone(deps), func(p string) bool { return slices.Contains(drop, p) })
}
