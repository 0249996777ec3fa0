package tools

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"agentk/contracts"
	"agentk/platform/mutant"
	"agentk/services/sandbox/internal/signoz"
)

// Where the alerted service's failures begin (DESIGN rule 17): the overview
// reads the alerted service's failing traces since its onset and in its
// baseline, and in each follows the failing spans down from the alerted
// service's own to the deepest one whose children do not fail. When most of
// the new failures begin in one callee that left its own baseline no later
// than the alerted service did, that callee is Facts.Origin: the service a
// rollback would have to target.
const (
	// OriginTraces is how many failing traces of the alerted service are
	// read since the onset, and again in the baseline.
	OriginTraces = 30
	// OriginSpans bounds the spans read of those traces.
	OriginSpans = 3000
	// DefaultOriginShare is the least share of the alerted service's failing
	// traces since the onset whose failures begin in one callee for that
	// callee to be the origin (Limits.OriginShare overrides it).
	DefaultOriginShare = 0.5
	// OriginMinTraces is the fewest failing traces since the onset the share
	// is judged on.
	OriginMinTraces = 5
	// OriginTolerance is how far after the alerted service's onset the
	// origin's own onset may lie: the series are per minute, and a callee's
	// failures reach its caller's in the same minute or the next.
	OriginTolerance = 2 * time.Minute
	// LatencyChildShare is the least part of a slow span's duration one
	// child must take for the slowness to be followed down into it.
	LatencyChildShare = 0.5
)

// originFields are the span columns the origin reads of every span of the
// alerted service's failing traces.
var originFields = append(slices.Clone(traceFields), span("name", "string"), span("kind_string", "string"))

// originShare is lim's share, or the default when it names none.
func originShare(lim Limits) float64 {
	if lim.OriginShare > 0 && lim.OriginShare <= 1 {
		return lim.OriginShare
	}
	return DefaultOriginShare
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

// spanTree is one trace's spans by id and the children of each, and each
// service's baseline p95 (ms) where its own onset measured one.
type spanTree struct {
	spans   map[string]traceSpan
	kids    map[string][]string
	baseP95 map[string]float64
}

// baselineP95 is each service's baseline p95 from its own onset.
func baselineP95(onsets map[string]Onset) map[string]float64 {
	out := map[string]float64{}
	for svc, o := range onsets {
		if o.BaselineP95Ms > 0 {
			out[svc] = o.BaselineP95Ms
		}
	}
	return out
}

// abandoned reports whether parent gave up on its failing child c: c failed
// with an error and ended after parent did, and parent waited less than c's
// service usually takes (its baseline p95). A parent that waited longer
// timed out on a slow child: the failure begins in the child. Without a
// baseline, never.
func (t *spanTree) abandoned(parent, c traceSpan) bool {
	if !c.err || parent.dur <= 0 || !c.start.Add(c.dur).After(parent.start.Add(parent.dur).Add(time.Millisecond)) {
		return false
	}
	p95, ok := t.baseP95[c.service]
	return ok && float64(parent.dur)/1e6 < p95
}

// treesOf indexes rows by trace. failing marks a span of the alerted
// service's failing set by an error; the latency path reads durations.
func treesOf(rows []signoz.RawRow, baseP95 map[string]float64) map[string]*spanTree {
	out := map[string]*spanTree{}
	for _, r := range rows {
		d := r.Data
		tid, sid := attrString(d, "trace_id"), attrString(d, "span_id")
		if tid == "" || sid == "" {
			continue
		}
		s := traceSpan{id: sid, parent: attrString(d, "parent_span_id"), service: resourceValue(d, "service.name"), start: rowTime(r)}
		if v, ok := attrValue(d, "has_error").(bool); ok && v {
			s.failing, s.err = true, true
		}
		if v, ok := num(attrValue(d, "duration_nano")); ok {
			s.dur = time.Duration(v)
		}
		if n := attrString(d, "name"); n != "" {
			s.op = strings.TrimSpace(n + " " + attrString(d, "kind_string"))
		}
		t := out[tid]
		if t == nil {
			t = &spanTree{spans: map[string]traceSpan{}, kids: map[string][]string{}, baseP95: baseP95}
			out[tid] = t
		}
		if _, dup := t.spans[sid]; dup {
			continue
		}
		t.spans[sid] = s
		t.kids[s.parent] = append(t.kids[s.parent], sid)
	}
	for _, t := range out {
		for p := range t.kids {
			slices.Sort(t.kids[p])
		}
	}
	return out
}

// errorBeginnings are the spans where s's error begins: following its failing
// children down, the deepest ones none of whose own children fail; s itself
// when no child fails. A failing child s abandoned (abandoned: a cancelled
// call) is not where s's failure begins.
func (t *spanTree) errorBeginnings(s traceSpan, depth int) []traceSpan {
	var out []traceSpan
	for _, k := range t.kids[s.id] {
		c := t.spans[k]
		if !c.err || depth >= 64 || t.abandoned(s, c) {
			continue
		}
		out = append(out, t.errorBeginnings(c, depth+1)...)
	}
	if len(out) == 0 {
		return []traceSpan{s}
	}
	return out
}

// latencyBeginning is where s's time goes: the child that takes most of it,
// followed down while one child takes at least LatencyChildShare of its
// parent's duration.
func (t *spanTree) latencyBeginning(s traceSpan) traceSpan {
	for hop := 0; hop < 64; hop++ {
		var best traceSpan
		for _, k := range t.kids[s.id] {
			if c := t.spans[k]; c.dur > best.dur {
				best = c
			}
		}
		if best.id == "" || float64(best.dur) < LatencyChildShare*float64(s.dur) {
			return s
		}
		s = best
	}
	return s
}

// path is the services from top down to s, each once in a row.
func (t *spanTree) path(top, s traceSpan) []string {
	var up []string
	for cur, hop := s, 0; hop < 64; hop++ {
		if len(up) == 0 || up[len(up)-1] != cur.service {
			up = append(up, cur.service)
		}
		if cur.id == top.id {
			break
		}
		p, ok := t.spans[cur.parent]
		if !ok {
			break
		}
		cur = p
	}
	slices.Reverse(up)
	return up
}

// beginning is where one failing trace's failures begin in one service.
type beginning struct {
	op   string
	path []string
}

// traceBeginnings returns, per service, where the failures of the alerted
// service's failing spans of trace t begin. svc's failing spans are its
// errors, or for the latency signal its spans at or above thrMs; only the
// topmost of a nested run of them is followed.
func traceBeginnings(t *spanTree, svc, signal string, thrMs float64) map[string]beginning {
	isFailing := func(s traceSpan) bool {
		if signal == "latency" {
			return thrMs > 0 && float64(s.dur)/1e6 >= thrMs
		}
		return s.err
	}
	out := map[string]beginning{}
	ids := make([]string, 0, len(t.spans))
	for id := range t.spans {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		s := t.spans[id]
		if s.service != svc || !isFailing(s) {
			continue
		}
		if p, ok := t.spans[s.parent]; ok && p.service == svc && isFailing(p) {
			continue
		}
		var ends []traceSpan
		if signal == "latency" {
			ends = []traceSpan{t.latencyBeginning(s)}
		} else {
			ends = t.errorBeginnings(s, 0)
		}
		for _, e := range ends {
			b := beginning{op: e.op, path: t.path(s, e)}
			if old, ok := out[e.service]; !ok || len(b.path) > len(old.path) {
				out[e.service] = b
			}
		}
	}
	return out
}

// originCount is, for one service, how many of the alerted service's failing
// traces begin there since the onset and in the baseline.
type originCount struct {
	service            string
	since, baseline    int64
	ops                map[string]int64
	path               []string
	onset              *time.Time
	sinceTotal, before int64
}

// originInput is what judgeOrigin reads: plain values, so that its table
// test needs no SigNoz.
type originInput struct {
	service, signal string
	thrMs           float64
	since, baseline []string
	trees           map[string]*spanTree
	onset           time.Time
	// onsets are the other services' own onsets.
	onsets map[string]Onset
	share  float64
}

// judgeOrigin counts where the failures of in.service's failing traces begin
// and returns the origin, when a callee is (nil otherwise), and the counts
// of every service, most failures first.
func judgeOrigin(in originInput) (*contracts.FailureOrigin, []originCount) {
	counts, total, before := countBeginnings(in)
	var all []originCount
	for svc, oc := range counts {
		oc.sinceTotal, oc.before = total, before
		if o, ok := in.onsets[svc]; ok && svc != in.service {
			oc.onset = o.At
		}
		all = append(all, *oc)
	}
	slices.SortFunc(all, func(a, b originCount) int {
		return cmp.Or(cmp.Compare(b.since, a.since), cmp.Compare(a.service, b.service))
	})
	return pickOrigin(in, all, total), all
}

// countBeginnings counts, per service, the failing traces since the onset
// and in the baseline whose failures begin there; total and before are the
// failing traces in each.
func countBeginnings(in originInput) (counts map[string]*originCount, total, before int64) {
	counts = map[string]*originCount{}
	get := func(svc string) *originCount {
		if counts[svc] == nil {
			counts[svc] = &originCount{service: svc, ops: map[string]int64{}}
		}
		return counts[svc]
	}
	for _, id := range in.since {
		t := in.trees[id]
		if t == nil {
			continue
		}
		bs := traceBeginnings(t, in.service, in.signal, in.thrMs)
		if len(bs) == 0 {
			continue
		}
		total++
		for svc, b := range bs {
			oc := get(svc)
			oc.since++
			oc.ops[b.op]++
			if len(b.path) > len(oc.path) {
				oc.path = b.path
			}
		}
	}
	for _, id := range in.baseline {
		if t := in.trees[id]; t != nil {
			bs := traceBeginnings(t, in.service, in.signal, in.thrMs)
			if len(bs) > 0 {
				before++
			}
			for svc := range bs {
				get(svc).baseline++
			}
		}
	}
	return counts, total, before
}

// pickOrigin returns the origin among the counts all (most failures first)
// of total failing traces: the callee where most failures begin, if enough
// do and it left its baseline no later than the alerted service; else nil.
func pickOrigin(in originInput, all []originCount, total int64) *contracts.FailureOrigin {
	for _, oc := range all {
		if oc.service == in.service || oc.since == 0 {
			continue
		}
		share := float64(oc.since) / float64(total)
		if total < OriginMinTraces || (share < in.share && !mutant.Off(mutant.SandboxOriginShare)) {
			break
		}
		// A callee that left its baseline only after the alerted service
		// did is not where the failure began.
		if oc.onset == nil || oc.onset.After(in.onset.Add(OriginTolerance)) {
			break
		}
		return &contracts.FailureOrigin{Service: oc.service, Operation: topOp(oc.ops), Signal: in.signal, Share: round(share),
			Failures: oc.since, Total: total, Baseline: oc.baseline, Onset: oc.onset, Path: oc.path}
	}
	return nil
}

// topOp is the operation most failures begin in (by name on a tie).
func topOp(ops map[string]int64) string {
	best, n := "", int64(-1)
	for op, k := range ops {
		if k > n || (k == n && op < best) {
			best, n = op, k
		}
	}
	return best
}

// originLine says where the failures begin, for the model and the reviewer.
func originLine(svc string, o *contracts.FailureOrigin, all []originCount) string {
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
		parts = append(parts, fmt.Sprintf("%s %d of %d", oc.service, oc.since, oc.sinceTotal))
	}
	return "failures of " + svc + "'s failing traces since the onset begin in: " + strings.Join(parts, ", ") + " (no callee is the origin)"
}

// withOrigin adds the origin to the co-regressed services when it is not
// among them (its own onset lies more than CoRegressionWindow before this
// service's): whatever else holds, rolling back the alerted service does not
// fix failures that begin in another service.
func withOrigin(coRegressed []string, o *contracts.FailureOrigin) []string {
	if o == nil || slices.Contains(coRegressed, o.Service) {
		return coRegressed
	}
	out := append(slices.Clone(coRegressed), o.Service)
	slices.Sort(out)
	return out
}

// followUps is what the overview's later stages answered, after the refine
// query: the answers judgePropagation reads, and where the failures begin.
type followUps struct {
	prop   []signoz.Response
	origin *contracts.FailureOrigin
	counts []originCount
	// fell is, per examined service, its calls and failing spans a minute
	// (fewercalls.go).
	fell map[string]*callsFell
}

// overviewFollow splits the answers after the refine query (follow): each
// examined service's failing spans, the two originQueries, then the third
// stage's failing_traces and origin_traces, each where overviewThen planned
// it (derived again from the same answers).
func overviewFollow(c Call, lim Limits, st overviewState, follow []signoz.Response) (followUps, error) {
	n := len(st.examined)
	if len(follow) < 2*n+2 {
		return followUps{prop: follow}, nil
	}
	out := followUps{prop: slices.Clone(follow[:n])}
	rest := follow[2*n+2:]
	var err error
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
	if err != nil || len(since)+len(before) == 0 || len(rest) == 0 {
		return out, err
	}
	rows, err := rawRows(rest, 0)
	if err != nil {
		return out, err
	}
	out.origin, out.counts = judgeOrigin(originInput{service: c.Service, signal: originSignal(st.onset), thrMs: st.onset.P95ThresholdMs,
		since: since, baseline: before, trees: treesOf(rows, baselineP95(st.alt.onsets)), onset: *st.onset.At, onsets: st.alt.onsets, share: originShare(lim)})
	return out, nil
}
