package tools

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"agentk/contracts"
	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"
)

// Where the alerted service's failures begin (DESIGN rule 17): the overview
// reads the alerted service's failing traces since its onset and in its
// baseline (these queries); facts.JudgeOrigin follows their failing spans
// down and names the origin.
const (
	// OriginTraces is how many failing traces of the alerted service are
	// read since the onset, and again in the baseline.
	OriginTraces = 30
	// OriginSpans bounds the spans read of those traces.
	OriginSpans = 3000
)

// originFields are the span columns the origin reads of every span of the
// alerted service's failing traces.
var originFields = append(slices.Clone(traceFields), span("name", "string"), span("kind_string", "string"))

// originShare is lim's share, or the default when it names none.
func originShare(lim Limits) float64 {
	if lim.OriginShare > 0 && lim.OriginShare <= 1 {
		return lim.OriginShare
	}
	return facts.DefaultOriginShare
}

// originSignal is what failed in the alerted service: "latency" when its
// onset is a p95 departure, "errors" otherwise.
func originSignal(on Onset) string {
	if on.Signal == "p95" {
		return "latency"
	}
	return "errors"
}

// originFilter selects the alerted service's failing spans: errors, or for
// a latency onset spans at or above its p95 threshold.
func originFilter(c Call, on Onset) string {
	if originSignal(on) == "latency" && on.P95ThresholdMs > 0 {
		return and(serviceFilter(c.Service), "duration_nano >= "+fmt.Sprint(int64(on.P95ThresholdMs*1e6)))
	}
	return and(serviceFilter(c.Service), "has_error = true")
}

// originQueries are the alerted service's failing spans since the onset and
// in its baseline (stage base of overviewThen).
func originQueries(c Call, on Onset) []Query {
	q := func(name string, from, to time.Time) Query {
		return Query{Name: name, Request: signoz.NewRequest(signoz.RequestRaw, from.UnixMilli(), to.UnixMilli(), signoz.BuilderQuery{Name: "A", Signal: signoz.SignalTraces,
			Filter: signoz.Filter{Expression: originFilter(c, on)}, Limit: 2 * OriginTraces, Order: desc("timestamp"), SelectFields: traceFields})}
	}
	return []Query{q("origin_failing", *on.At, c.Incident.To), q("origin_baseline", on.BaselineFrom, *on.At)}
}

// originIDs reads the trace ids of the alerted service's failing spans, at
// most OriginTraces, from one of originQueries' answers.
func originIDs(c Call, resps []signoz.Response, i int) ([]string, error) {
	rows, err := rawRows(resps, i)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, r := range rows {
		id := attrString(r.Data, "trace_id")
		if id == "" || resourceValue(r.Data, "service.name") != c.Service || slices.Contains(ids, id) {
			continue
		}
		if ids = append(ids, id); len(ids) == OriginTraces {
			break
		}
	}
	return ids, nil
}

// originIDSets reads the trace ids of both originQueries' answers (resps):
// since the onset and in the baseline.
func originIDSets(c Call, resps []signoz.Response) (since, before []string, err error) {
	if since, err = originIDs(c, resps, 0); err != nil {
		return nil, nil, err
	}
	if before, err = originIDs(c, resps, 1); err != nil {
		return nil, nil, err
	}
	return since, before, nil
}

// originTracesQuery reads every span of the traces ids (since and baseline).
func originTracesQuery(c Call, lim Limits, on Onset, ids []string) Query {
	var q []string
	for _, id := range ids {
		q = append(q, Quote(id))
	}
	f := and("trace_id IN ("+strings.Join(q, ", ")+")", excludeFilter(lim.Exclude))
	return Query{Name: "origin_traces", Request: signoz.NewRequest(signoz.RequestRaw, on.BaselineFrom.Add(-5*time.Minute).UnixMilli(), c.Incident.To.UnixMilli(),
		signoz.BuilderQuery{Name: "A", Signal: signoz.SignalTraces, Filter: signoz.Filter{Expression: f}, Limit: OriginSpans, Order: desc("timestamp"), SelectFields: originFields})}
}

// FaultCalls bounds the failed outbound spans read for the failing
// dependencies' statuses (facts.DependencyFaults).
const FaultCalls = 300

// faultFields are the columns of a failed client span that say which peer
// it called, what status the peer answered with, and whether the caller
// gave up on the call itself (the span's status message and error.type:
// facts.RetriedOwnFaults does not count a call that timed out at the
// caller as the peer's failure). Every dependency_faults query selects them
// all, whichever of the failing and the retried dependencies the overview
// found: what a fact needs is asked whenever the fact may be read.
var faultFields = append(slices.Clone(traceFields), span("kind_string", "string"),
	tag("server.address", "string"), tag("net.peer.name", "string"), tag(MicrometerPeerKey, "string"), tag(DataSourcePeerKey, "string"),
	tag(facts.AWSServiceKey, "string"), tag(facts.AWSSystemKey, "string"), tag(facts.GCPClientServiceKey, "string"),
	tag("http.response.status_code", "number"), tag("http.status_code", "number"), tag("rpc.grpc.status_code", "number"),
	tag(facts.MicrometerStatusKey, "string"), tag(facts.MicrometerOutcomeKey, "string"),
	span("status_message", "string"), tag("error.type", "string"))

// faultQuery reads the alerted service's failed outbound spans (client and
// producer, outboundSpans) since the onset, with their peer and status (the
// last query of the overview's third stage, after origin_traces); nil when no dependency is failing, at its
// usual call rate or above it (retriedDeps), unless the consistent peer
// calls were asked (consistent: a dependency they find failing is judged
// in the same rows).
func faultQuery(c Call, st overviewState, consistent bool) *Query {
	if !asksFaults(st, consistent) {
		return nil
	}
	return &Query{Name: "dependency_faults", Request: signoz.NewRequest(signoz.RequestRaw, st.onset.At.UnixMilli(), c.Incident.To.UnixMilli(),
		signoz.BuilderQuery{Name: "A", Signal: signoz.SignalTraces, Filter: signoz.Filter{Expression: and(serviceFilter(c.Service), outboundCalls(), "has_error = true")},
			Limit: FaultCalls, Order: desc("timestamp"), SelectFields: faultFields})}
}

// asksFaults says whether faultQuery is asked.
func asksFaults(st overviewState, consistent bool) bool {
	return len(st.failingDeps)+len(st.retriedDeps) > 0 || consistent
}

// originLine says where the failures begin, for the model and the reviewer.
func originLine(svc string, o *contracts.FailureOrigin, all []facts.OriginCount) string {
	if o != nil {
		s := fmt.Sprintf("failures begin in %s (%s, %s): %d of %d failing traces of %s since the onset (share %s), %d in the baseline; path %s",
			o.Service, o.Operation, o.Signal, o.Failures, o.Total, svc, fmtF(o.Share), o.Baseline, strings.Join(o.Path, " -> "))
		if o.Onset != nil {
			s += "; " + o.Service + "'s own onset " + o.Onset.Format(time.RFC3339)
		}
		return s + " (the origin: check " + o.Service + "'s deployment markers and overview)"
	}
	if len(all) == 0 {
		return ""
	}
	var parts []string
	for _, oc := range all[:min(len(all), 3)] {
		parts = append(parts, fmt.Sprintf("%s %d of %d", oc.Service, oc.Since, oc.SinceTotal))
	}
	return "failures of " + svc + "'s failing traces since the onset begin in: " + strings.Join(parts, ", ") + " (no callee is the origin)"
}

// followUps is what the overview's later stages answered, after the refine
// query: the answers judgePropagation reads, where the failures begin, and
// which failing dependencies answered with their own failure status.
type followUps struct {
	prop   []signoz.Response
	origin *contracts.FailureOrigin
	counts []facts.OriginCount
	// fell is, per examined service, its calls and failing spans a minute
	// (fewercalls_plan.go).
	fell map[string]*facts.CallsFell
	// faults are the failing dependencies whose failed calls in the
	// origin's traces mostly carry the peer's own failure status; refusals
	// those whose failed calls mostly carry a refusal (facts.RefusedPeers).
	faults   []string
	refusals map[string]float64
	// authRefused are the failing dependencies whose failed calls mostly
	// refuse the service's credential (facts.AuthRefusedPeers).
	authRefused []string
	// retriedFaults are the retried peers whose failed calls mostly carry
	// the peer's own failure status, not the caller's own timeout.
	retriedFaults []string
	// timedOut are the failing dependencies whose failed calls mostly say
	// the service gave up waiting (facts.TimedOutPeers).
	timedOut []string
	// silent are the failing dependencies whose failed calls mostly carry
	// no status and no text (facts.SilentPeers).
	silent []string
	// impatient are the failing dependencies whose failed calls they
	// answered, on which the service waited longer before the onset
	// (facts.ImpatientPeers, read in the origin's rows).
	impatient []string
	// newCalls are the failing dependencies whose failures are the
	// running version's new calls (newcalls_plan.go); confined those
	// whose failures are the running version's calls only
	// (facts.VersionConfined), before the callee checks of confinedCallees.
	newCalls, confined []string
	// sent are sentQueries' answers, after the new calls' (sent_plan.go).
	sent []signoz.Response
	// newCallsCut says the new calls' answers came back fewer than
	// planned, so nothing was compared ("" when they all did).
	newCallsCut string
	// calleePeers are the peer names under which the service's client
	// spans in the origin's traces are answered by the origin's failing
	// spans (facts.FailingCalleePeers).
	calleePeers []string
	originRows  []signoz.RawRow
	// capacity are the failing dependencies whose failed calls mostly say
	// they are out of capacity or unavailable (facts.CapacityPeers).
	capacity []string
	// logged are the service's arrivals read from its logs
	// (loggedarrivals_plan.go).
	logged *contracts.LoggedArrivals
	// consistent are its arrivals read from the traces a consistent
	// sampler kept by trace id (consistentarrivals_plan.go).
	consistent *contracts.ConsistentArrivals
	// failingDeps are st.failingDeps and the peers failing at their usual
	// rate within the consistent share (facts.ConsistentPeers).
	failingDeps []string
}

// readConsistent reads the consistent arrivals from their samples' answers
// (resps) and, when they were believed, the consistent peer calls, the
// first answer of the third stage (rest), into out; it returns whether
// those were asked and rest after them.
func (out *followUps) readConsistent(c Call, st overviewState, resps, rest []signoz.Response) (bool, []signoz.Response, error) {
	out.failingDeps = st.failingDeps
	cq, ca, cb, cs, err := consistentPeerPlan(c, st, resps)
	out.consistent = ca
	if err != nil || cq == nil || len(rest) == 0 {
		return cq != nil, rest, err
	}
	if err := readConsistentPeers(c, ca, cb, cs, rest); err != nil {
		return true, rest, err
	}
	out.failingDeps = facts.AppendNew(slices.Clone(st.failingDeps), facts.ConsistentFailingPeers(ca.Peers)...)
	return true, rest[1:], nil
}

// overviewFollow splits the answers after the refine query (follow): each
// examined service's failing spans, the two originQueries, each examined
// service's failing counts and the logged arrivals' answers (st.logged), then the third
// stage's failing_traces and origin_traces, each where overviewThen planned
// it (derived again from the same answers).
func overviewFollow(c Call, lim Limits, st overviewState, follow []signoz.Response) (followUps, error) {
	n, k := len(st.examined), len(st.logged)
	if len(follow) < 2*n+2+k {
		return followUps{prop: follow}, nil
	}
	out := followUps{prop: slices.Clone(follow[:n])}
	rest := follow[2*n+2+k:]
	var err error
	if out.logged, err = readLoggedArrivals(st, follow[2*n+2:2*n+2+k]); err != nil {
		return out, err
	}
	asked, rest, err := out.readConsistent(c, st, follow[2*n+2+loggedAsked(st):2*n+2+k], rest)
	if err != nil {
		return out, err
	}
	if out.fell, err = fellOf(st, follow[n+2:2*n+2]); err != nil {
		return out, err
	}
	q, err := propagationTracesQuery(c, lim, st, follow[:n])
	if err != nil {
		return out, err
	}
	if q != nil && len(rest) > 0 {
		out.prop, rest = append(out.prop, rest[0]), rest[1:]
	}
	since, before, err := originIDSets(c, follow[n:n+2])
	if err != nil {
		return out, err
	}
	if len(since)+len(before) > 0 && len(rest) > 0 {
		rows, err := rawRows(rest, 0)
		if err != nil {
			return out, err
		}
		out.origin, out.counts = facts.JudgeOrigin(facts.OriginInput{Service: c.Service, Signal: originSignal(st.onset), ThrMs: st.onset.P95ThresholdMs,
			Since: since, Baseline: before, Rows: rows, Onset: *st.onset.At, Onsets: st.alt.Onsets, Share: originShare(lim)})
		out.impatient = facts.ImpatientPeers(rows, c.Service, *st.onset.At, st.failingDeps)
		out.originRows = rows
		rest = rest[1:]
	}
	if asksFaults(st, asked) && len(rest) > 0 {
		rows, err := rawRows(rest, 0)
		if err != nil {
			return out, err
		}
		deps := out.failingDeps
		out.faults = facts.DependencyFaults(rows, c.Service, *st.onset.At, deps, PeerKeys)
		out.timedOut = facts.TimedOutPeers(rows, c.Service, *st.onset.At, deps, PeerKeys)
		out.silent = facts.SilentPeers(rows, c.Service, *st.onset.At, deps, PeerKeys)
		out.refusals = facts.RefusedPeers(rows, c.Service, *st.onset.At, deps, PeerKeys)
		out.authRefused = facts.AuthRefusedPeers(rows, c.Service, *st.onset.At, deps, PeerKeys)
		out.retriedFaults = facts.RetriedOwnFaults(rows, c.Service, *st.onset.At, st.retriedDeps, PeerKeys)
		out.capacity = facts.CapacityPeers(rows, c.Service, *st.onset.At, deps, PeerKeys)
		if out.origin != nil {
			out.calleePeers = facts.FailingCalleePeers(out.originRows, rows, c.Service, out.origin.Service, PeerKeys)
		}
		rest = rest[1:]
	}
	if n := len(newCallQueries(c, st)); len(rest) >= n {
		out.sent = rest[n:]
	}
	return out, readNewCallFailures(c, st, rest, &out)
}

// readNewCallFailures reads newCallQueries' answers (rest: the third
// stage's after dependency_faults) into out.newCalls.
func readNewCallFailures(c Call, st overviewState, rest []signoz.Response, out *followUps) error {
	if len(newCallQueries(c, st)) == 0 {
		return nil
	}
	var err error
	out.newCalls, out.confined, out.newCallsCut, err = newCallFailures(c, st, rest)
	return err
}
