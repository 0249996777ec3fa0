package facts

import (
	"slices"
	"time"

	"agentk/contracts"
	"agentk/platform/mutant"
	"agentk/services/sandbox/internal/signoz"
)

// Propagation: a service that regressed with the affected one because it
// calls it (its failing traces hold the affected service's failing spans
// beneath its own) is no shared cause; the overview asks for those traces in
// two follow-up stages (tools' overviewThen) and JudgePropagation drops such
// services from the co-regressed ones.
const (
	// PropagationShare is the least share of a service's failing traces that
	// must hold the affected service's failing spans beneath its own.
	PropagationShare = 0.5
	// LoadRatio is the rise of a callee's request rate at or above which its
	// failures beneath the affected service's calls are load that service
	// sent (a retry storm), not a cause: a callee failing at its usual load
	// beneath the service is a dependency that failed.
	LoadRatio = 2.0
)

type traceSpan struct {
	id, parent, service string
	failing             bool
	// rejected: a server span that answered a rejection (StatusRejected).
	rejected bool
	// proxy: a mesh sidecar's span, its service read as its app's
	// (SidecarApp; origin.go's treesOf).
	proxy bool
	// op ("name KIND"), err (the span's own error), start and dur are read
	// where the query selected them (origin.go).
	op    string
	err   bool
	start time.Time
	dur   time.Duration
}

// readSpan reads one raw row of a trace query: its trace id and the span,
// failing when it has an error; ok is false without a trace or span id.
func readSpan(r signoz.RawRow) (tid string, s traceSpan, ok bool) {
	d := r.Data
	tid, sid := AttrString(d, "trace_id"), AttrString(d, "span_id")
	if tid == "" || sid == "" {
		return "", traceSpan{}, false
	}
	s = traceSpan{id: sid, parent: AttrString(d, "parent_span_id"), service: ResourceValue(d, "service.name"), start: RowTime(r)}
	if failed(d) {
		s.failing, s.err = true, true
	}
	s.rejected = StatusRejected(d)
	if v, ok := signoz.ToFloat(AttrValue(d, "duration_nano")); ok {
		s.dur = time.Duration(v)
	}
	return tid, s, true
}

// Propagation is, per examined service, how many of its failing traces
// (Traces) hold a failing span of the affected service beneath one of its
// own spans (Beneath), how many fail beneath the affected service's calls
// (Under), and the rise of its request rate (Load).
type Propagation struct {
	Beneath, Under, Traces int
	Load                   float64
	// Effect counts the traces where svc fails on a call of the affected
	// service that it abandoned, Cause those where svc fails on a call that
	// was not abandoned (downstream.go).
	Effect, Cause int
}

// Judged is JudgePropagation's split of the co-regressed services.
type Judged struct {
	Shared, Propagated, Downstream []string
	// Abandoned are the downstream callees whose calls the service
	// abandons (their failing client spans are its own giving up); Fewer
	// are those it only calls less (fewercalls.go); Refused those that
	// refuse its requests as sent and fail their other callers no more
	// (refused.go).
	Abandoned, Fewer, Refused []string
	Seen                      map[string]Propagation
}

// PropagationInput is what JudgePropagation reads: the affected service and
// its onset's p95 threshold; the services that regressed with it
// (CoRegressed), those whose traces were read (Examined) with the ids of
// their failing traces (IDs) and every span of those traces (Rows); each
// service's own p95 threshold, onset and load (Alternatives); the origin,
// the failing dependencies and each examined service's calls around its
// onset (Fell).
type PropagationInput struct {
	Service               string
	ThrMs                 float64
	CoRegressed, Examined []string
	IDs                   map[string][]string
	Rows                  []signoz.RawRow
	Thresholds            map[string]float64
	Onsets                map[string]Onset
	Load                  map[string]*float64
	Origin                *contracts.FailureOrigin
	FailingDeps           []string
	Fell                  map[string]*CallsFell
	// Refusals are the peers whose failed calls from the service mostly
	// carry a refusal status, with that share (RefusedPeers); PeerFell the
	// service's client spans to each peer around the peer's own onset.
	Refusals map[string]float64
	PeerFell map[string]*CallsFell
	// Series are the co-regressed services' own minutes (requests, error
	// spans, p95; AlternativeFacts.Series) and AlertAt the alert's time:
	// a refusing callee's answers to its other callers are read from them.
	Series  map[string][]Minute
	AlertAt time.Time
	// Rejections is set when the service's onset was placed by its server
	// spans' rejections (Onset.Status): a rejection of the service's is
	// then a failing span beneath its callers (a caller whose client span
	// fails on FAILED_PRECONDITION failed because the service refused).
	Rejections bool
}

// JudgePropagation splits the co-regressed services into those whose
// regression came through their calls into the service (propagated), the
// callees that regressed only as its effect (downstream; never the origin,
// the callee where the service's failures begin) and the rest.
func JudgePropagation(in PropagationInput) Judged {
	out := Judged{Seen: map[string]Propagation{}}
	byTrace := spansByTrace(in)
	for _, svc := range in.CoRegressed {
		if !slices.Contains(in.Examined, svc) {
			out.Shared = append(out.Shared, svc)
			continue
		}
		p := judgeOne(in, svc, byTrace)
		out.Seen[svc] = p
		caller := float64(p.Beneath) >= PropagationShare*float64(p.Traces)
		loaded := float64(p.Under) >= PropagationShare*float64(p.Traces) && p.Load >= LoadRatio
		switch {
		case p.Traces > 0 && (caller || loaded):
			out.Propagated = append(out.Propagated, svc)
		case (in.Origin == nil || in.Origin.Service != svc) && IsDownstream(p):
			out.Downstream, out.Abandoned = append(out.Downstream, svc), append(out.Abandoned, svc)
		case (in.Origin == nil || in.Origin.Service != svc) && !failingDep(in, svc) && FewerCalls(in.Fell[svc]):
			out.Downstream, out.Fewer = append(out.Downstream, svc), append(out.Fewer, svc)
		case refused(in, svc):
			out.Downstream, out.Refused = append(out.Downstream, svc), append(out.Refused, svc)
		default:
			out.Shared = append(out.Shared, svc)
		}
	}
	return out
}

// failingDep reports whether svc is one of the service's failing
// dependencies, named by the peer name its client spans carry: svc itself
// or its Kubernetes service DNS name (KnownService, over the service and the
// co-regressed ones).
func failingDep(in PropagationInput, svc string) bool {
	if slices.Contains(in.FailingDeps, svc) {
		return true
	}
	if mutant.Off(mutant.SandboxFailingDepDNS) {
		return false
	}
	known := append(slices.Clone(in.CoRegressed), in.Service)
	for _, d := range in.FailingDeps {
		if k, ok := KnownService(d, known); ok && k == svc {
			return true
		}
	}
	return false
}

// refused reports whether svc, the origin of the service's failures,
// refuses its requests as sent while its answers to its other callers held:
// their errors did not rise and its latency did not leave its baseline
// (refused.go).
func refused(in PropagationInput, svc string) bool {
	share, ok := in.Refusals[svc]
	if !ok || in.Origin == nil || in.Origin.Service != svc {
		return false
	}
	o, ok := in.Onsets[svc]
	if !ok {
		return false
	}
	return OthersHeld(CallsFellOf(in.Series[svc], o), in.PeerFell[svc], share) && LatencyHeld(in.Series[svc], in.AlertAt)
}

// spansByTrace indexes the fetched spans by trace and span id, each marked
// failing by an error or by its own service's p95 threshold.
func spansByTrace(in PropagationInput) map[string]map[string]traceSpan {
	byTrace := map[string]map[string]traceSpan{}
	for _, r := range in.Rows {
		tid, s, ok := readSpan(r)
		if !ok {
			continue
		}
		// Each span is judged against its own service's threshold.
		thr := in.ThrMs
		if s.service != in.Service {
			thr = in.Thresholds[s.service]
		}
		if v, ok := signoz.ToFloat(AttrValue(r.Data, "duration_nano")); ok && thr > 0 && v/1e6 >= thr {
			s.failing = true
		}
		if byTrace[tid] == nil {
			byTrace[tid] = map[string]traceSpan{}
		}
		byTrace[tid][s.id] = s
	}
	return byTrace
}

// judgeOne counts, over svc's failing traces, those that hold the affected
// service's failing spans beneath svc's and those where svc fails beneath
// the affected service's calls.
func judgeOne(in PropagationInput, svc string, byTrace map[string]map[string]traceSpan) Propagation {
	var p Propagation
	base := BaselineP95(in.Onsets)
	for _, tid := range in.IDs[svc] {
		p.Traces++
		if beneath(byTrace[tid], in.Service, svc, in.Rejections) {
			p.Beneath++
		}
		if beneath(byTrace[tid], svc, in.Service, false) {
			p.Under++
		}
		effect, cause := effectOf(byTrace[tid], svc, in.Service, base)
		if effect {
			p.Effect++
		}
		if cause {
			p.Cause++
		}
	}
	if l := in.Load[svc]; l != nil {
		p.Load = *l
	}
	return p
}

// beneath reports whether a failing span of svc in trace has an ancestor span
// of caller: the caller's failure came through its call into svc (or, read
// the other way, svc failed beneath caller's calls).
// With rejections, a span of svc that rejected its request counts as
// failing (PropagationInput.Rejections).
func beneath(trace map[string]traceSpan, svc, caller string, rejections bool) bool {
	for _, s := range trace {
		if s.service != svc || !(s.failing || (rejections && s.rejected)) {
			continue
		}
		if _, _, ok := nearestOf(trace, s, caller); ok {
			return true
		}
	}
	return false
}
