package facts

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"agentk/contracts"
	"agentk/platform/mutant"
	"agentk/services/sandbox/internal/signoz"
)

// Where the alerted service's failures begin (DESIGN rule 17): the overview
// reads the alerted service's failing traces since its onset and in its
// baseline (tools' originQueries), and JudgeOrigin in each follows the failing spans down from the alerted
// service's own to the deepest one whose children do not fail. When most of
// the new failures begin in one callee that left its own baseline no later
// than the alerted service did, that callee is Facts.Origin: the service a
// rollback would have to target.
const (
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

// spanTree is one trace's spans by id and the children of each, and each
// service's baseline p95 (ms) where its own onset measured one.
type spanTree struct {
	spans   map[string]traceSpan
	kids    map[string][]string
	baseP95 map[string]float64
}

// BaselineP95 is each service's baseline p95 from its own onset.
func BaselineP95(onsets map[string]Onset) map[string]float64 {
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
		tid, s, ok := readSpan(r)
		if !ok {
			continue
		}
		if n := AttrString(r.Data, "name"); n != "" {
			s.op = strings.TrimSpace(n + " " + AttrString(r.Data, "kind_string"))
		}
		t := out[tid]
		if t == nil {
			t = &spanTree{spans: map[string]traceSpan{}, kids: map[string][]string{}, baseP95: baseP95}
			out[tid] = t
		}
		if _, dup := t.spans[s.id]; dup {
			continue
		}
		t.spans[s.id] = s
		t.kids[s.parent] = append(t.kids[s.parent], s.id)
	}
	for _, t := range out {
		for p := range t.kids {
			slices.Sort(t.kids[p])
		}
	}
	asApps(out)
	return out
}

// asApps reads each mesh sidecar's spans (service `<app>.<namespace>`,
// SidecarApp over the services of the fetched spans) as its app's: a
// proxy is never a second service, nor where a failure begins apart from
// its app.
func asApps(trees map[string]*spanTree) {
	var known []string
	for _, t := range trees {
		for _, s := range t.spans {
			known = append(known, s.service)
		}
	}
	slices.Sort(known)
	known = slices.Compact(known)
	apps := map[string]string{}
	for _, k := range known {
		if app, ok := SidecarApp(k, known); ok {
			apps[k] = app
		}
	}
	for _, t := range trees {
		for id, s := range t.spans {
			if app, ok := apps[s.service]; ok {
				s.service, s.proxy = app, true
				t.spans[id] = s
			}
		}
	}
}

// kidsOf are s's children, a sidecar's span that did not fail (a proxy
// that answered 200 over a failing gRPC call) seen through to its own.
func (t *spanTree) kidsOf(id string, depth int) []string {
	var out []string
	for _, k := range t.kids[id] {
		if c := t.spans[k]; c.proxy && !c.err && depth < 64 {
			out = append(out, t.kidsOf(k, depth+1)...)
			continue
		}
		out = append(out, k)
	}
	return out
}

// errorBeginnings are the spans where s's error begins: following its failing
// children down, the deepest ones none of whose own children fail; s itself
// when no child fails. A failing child s abandoned (abandoned: a cancelled
// call) is not where s's failure begins.
func (t *spanTree) errorBeginnings(s traceSpan, depth int) []traceSpan {
	var out []traceSpan
	for _, k := range t.kidsOf(s.id, 0) {
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

// OriginCount is, for one service, how many of the alerted service's failing
// traces begin there since the onset (Since, of SinceTotal) and in the
// baseline (Baseline, of Before), in which operations, by which path, and
// the service's own onset.
type OriginCount struct {
	Service            string
	Since, Baseline    int64
	Ops                map[string]int64
	Path               []string
	Onset              *time.Time
	SinceTotal, Before int64
}

// OriginInput is what JudgeOrigin reads: the alerted service, its failing
// signal ("errors" or "latency", with its p95 threshold), the ids of its
// failing traces since the onset and in the baseline, every span of those
// traces (Rows), its onset, the other services' own onsets and the least
// share.
type OriginInput struct {
	Service, Signal string
	ThrMs           float64
	Since, Baseline []string
	Rows            []signoz.RawRow
	Onset           time.Time
	// Onsets are the other services' own onsets.
	Onsets map[string]Onset
	Share  float64
}

// JudgeOrigin counts where the failures of in.Service's failing traces begin
// and returns the origin, when a callee is (nil otherwise), and the counts
// of every service, most failures first.
func JudgeOrigin(in OriginInput) (*contracts.FailureOrigin, []OriginCount) {
	counts, total, before := countBeginnings(in, treesOf(in.Rows, BaselineP95(in.Onsets)))
	var all []OriginCount
	for svc, oc := range counts {
		oc.SinceTotal, oc.Before = total, before
		if o, ok := in.Onsets[svc]; ok && svc != in.Service {
			oc.Onset = o.At
		}
		all = append(all, *oc)
	}
	slices.SortFunc(all, func(a, b OriginCount) int {
		return cmp.Or(cmp.Compare(b.Since, a.Since), cmp.Compare(a.Service, b.Service))
	})
	return pickOrigin(in, all, total), all
}

// countBeginnings counts, per service, the failing traces since the onset
// and in the baseline whose failures begin there; total and before are the
// failing traces in each.
func countBeginnings(in OriginInput, trees map[string]*spanTree) (counts map[string]*OriginCount, total, before int64) {
	counts = map[string]*OriginCount{}
	get := func(svc string) *OriginCount {
		if counts[svc] == nil {
			counts[svc] = &OriginCount{Service: svc, Ops: map[string]int64{}}
		}
		return counts[svc]
	}
	for _, id := range in.Since {
		t := trees[id]
		if t == nil {
			continue
		}
		bs := traceBeginnings(t, in.Service, in.Signal, in.ThrMs)
		if len(bs) == 0 {
			continue
		}
		total++
		for svc, b := range bs {
			oc := get(svc)
			oc.Since++
			oc.Ops[b.op]++
			if len(b.path) > len(oc.Path) {
				oc.Path = b.path
			}
		}
	}
	for _, id := range in.Baseline {
		if t := trees[id]; t != nil {
			bs := traceBeginnings(t, in.Service, in.Signal, in.ThrMs)
			if len(bs) > 0 {
				before++
			}
			for svc := range bs {
				get(svc).Baseline++
			}
		}
	}
	return counts, total, before
}

// pickOrigin returns the origin among the counts all (most failures first)
// of total failing traces: the callee where most failures begin, if enough
// do and it left its baseline no later than the alerted service; else nil.
func pickOrigin(in OriginInput, all []OriginCount, total int64) *contracts.FailureOrigin {
	for _, oc := range all {
		if oc.Service == in.Service || oc.Since == 0 {
			continue
		}
		share := float64(oc.Since) / float64(total)
		if total < OriginMinTraces || (share < in.Share && !mutant.Off(mutant.SandboxOriginShare)) {
			break
		}
		// A callee that left its baseline only after the alerted service
		// did is not where the failure began.
		if oc.Onset == nil || oc.Onset.After(in.Onset.Add(OriginTolerance)) {
			break
		}
		return &contracts.FailureOrigin{Service: oc.Service, Operation: topOp(oc.Ops), Signal: in.Signal, Share: round(share),
			Failures: oc.Since, Total: total, Baseline: oc.Baseline, Onset: oc.Onset, Path: oc.Path}
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

// WithOrigin adds the origin to the co-regressed services when it is not
// among them (its own onset lies more than CoRegressionWindow before this
// service's): whatever else holds, rolling back the alerted service does not
// fix failures that begin in another service.
func WithOrigin(coRegressed []string, o *contracts.FailureOrigin) []string {
	if o == nil || slices.Contains(coRegressed, o.Service) {
		return coRegressed
	}
	out := append(slices.Clone(coRegressed), o.Service)
	slices.Sort(out)
	return out
}
