package tools

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"agentk/contracts"
	"agentk/services/sandbox/internal/signoz"
)

// Propagation: a service that regressed with the affected one because it
// calls it (its failing traces hold the affected service's failing spans
// beneath its own) is no shared cause; the overview asks for those traces in
// two follow-up stages and drops such services from the co-regressed ones.
const (
	// MaxPropagationServices is how many co-regressed services are examined;
	// any beyond stay co-regressed (fail closed).
	MaxPropagationServices = 5
	// PropagationTraces is how many failing traces of each are examined.
	PropagationTraces = 20
	// PropagationSpans bounds the spans read of those traces.
	PropagationSpans = 1000
	// PropagationShare is the least share of a service's failing traces that
	// must hold the affected service's failing spans beneath its own.
	PropagationShare = 0.5
	// LoadRatio is the rise of a callee's request rate at or above which its
	// failures beneath the affected service's calls are load that service
	// sent (a retry storm), not a cause: a callee failing at its usual load
	// beneath the service is a dependency that failed.
	LoadRatio = 2.0
)

// overviewState is what the first stage's answers of service_overview say:
// the onset, the alternatives and the release comparison. Both Then and Build derive it, from the same
// answers, the same way.
type overviewState struct {
	minutes []Minute
	onset   Onset
	alt     alternativeFacts
	release *contracts.ReleaseErrors
	// failingDeps are the peers failing at their usual call rate.
	failingDeps []string
	// slowDeps are the peers slower at their usual call rate.
	slowDeps []slowDependency
	// pool is what the service's connection-pool spans showed.
	pool *contracts.PoolWaits
	// restarts are the running version's processes replaced since the onset.
	restarts []contracts.ProcessRestart
	// pressure counts the logs naming a resource under pressure.
	pressure *contracts.ResourcePressure
	// runtime is the runtime attribute that rose most since the onset;
	// runtimeRefused is what SigNoz said when it refused to measure them.
	runtime        *contracts.RuntimeLevel
	runtimeRefused string
	// peakCall is the highest rise of the calls to one peer, peakPeer that peer.
	peakCall *float64
	peakPeer string
	// retries is the retry source that rose most per inbound request.
	retries *contracts.RetryRise
	// departures are the operations that left their own baseline.
	departures []opDeparture
	// quality are the attributes of the service's spans that shifted.
	quality []qualityDeparture
	// examined are the co-regressed services whose traces are fetched, in order.
	examined []string
}

// overviewBase derives the state from the first stage's answers (resps) and
// the quality stage's (qual, one per key of qualityKeys of the sample).
func overviewBase(c Call, resps, qual []signoz.Response) (overviewState, error) {
	var st overviewState
	var err error
	if st.minutes, err = perMinute(resps[4], resps[5]); err != nil {
		return st, err
	}
	entryErrs, err := errorsBySignature(resps[10])
	if err != nil {
		return st, err
	}
	st.onset = SignatureOnset(FindOnset(st.minutes, c.StartsAt, DefaultMargins), st.minutes, entryErrs, c.StartsAt, DefaultMargins)
	peerEnd := 11 + 2*len(PeerKeys)
	opEnd := peerEnd + 5 + 2*len(operationKeys)
	ops, filters, err := operationSeries(resps[peerEnd+5 : opEnd])
	if err != nil {
		return st, err
	}
	vs, err := readOpVersions(resps[opEnd], resps[opEnd+1])
	if err != nil {
		return st, err
	}
	st.departures = operationDeparturesBy(ops, filters, vs, c.StartsAt, DefaultMargins)
	st.onset = earliestOnset(st.onset, st.departures)
	keys, retry := sampleKeys(resps[overviewQueries-1])
	qual = qual[:min(len(qual), stageTwoCount(keys, retry))]
	if st.quality, err = qualityDepartures(keys, qual[:min(len(qual), len(keys))], c.StartsAt, DefaultMargins); err != nil {
		return st, err
	}
	st.onset = earliestWithQuality(st.onset, st.quality)
	st.onset = earliestWithRule(st.onset, ruleOnsetOf(c, st.minutes))
	if st.onset.At == nil {
		return st, nil
	}
	if st.alt, err = alternatives(resps[6], resps[9], resps[7], resps[8], c.StartsAt, st.onset); err != nil {
		return st, err
	}
	if st.release, err = releaseErrors(resps[9], resps[10], *st.onset.At); err != nil {
		return st, err
	}
	peers, err := peerSeries(resps[11:peerEnd])
	if err != nil {
		return st, err
	}
	// A client that retries inside one span makes as many attempts as
	// the span's retry count says: the calls to its peer are the attempts.
	if err := addRetryAttempts(peers, qual[min(len(qual), len(keys)+len(retry)):]); err != nil {
		return st, err
	}
	if st.pool, err = poolWaits(resps[peerEnd], resps[peerEnd+1], entryErrs, st.onset); err != nil {
		return st, err
	}
	if st.restarts, err = runningRestarts(resps[9], resps[peerEnd+2], st.release, *st.onset.At); err != nil {
		return st, err
	}
	if st.pressure, err = resourcePressure(resps[peerEnd+3], st.onset, st.minutes); err != nil {
		return st, err
	}
	st.runtimeRefused = resps[peerEnd+4].Refused
	if st.runtime, err = runtimeSaturation(resps[peerEnd+4], st.onset); err != nil {
		return st, err
	}
	inbound, err := inboundMinutes(resps[6], resps[9], st.onset.BaselineFrom, *st.onset.At)
	if err != nil {
		return st, err
	}
	if st.retries, err = retryRise(retry, qual[min(len(qual), len(keys)):min(len(qual), len(keys)+len(retry))], resps[overviewQueries-2], inbound, st.onset); err != nil {
		return st, err
	}
	st.failingDeps, st.slowDeps = failingDependencies(peers, c.StartsAt, st.onset), slowDependencies(peers, st.minutes, c.StartsAt, st.onset)
	st.peakCall, st.peakPeer = peakCalls(peers, st.onset)
	st.examined = st.alt.coRegressed[:min(len(st.alt.coRegressed), MaxPropagationServices)]
	return st, nil
}

// failing is the filter of a service's failing spans: an error, or a duration
// at or above its onset's p95 threshold.
func failing(svc string, thrMs float64) string {
	f := "has_error = true"
	if thrMs > 0 {
		f = "(has_error = true OR duration_nano >= " + strconv.FormatInt(int64(thrMs*1e6), 10) + ")"
	}
	return and(serviceFilter(svc), f)
}

var traceFields = []signoz.FieldKey{
	span("trace_id", "string"), span("span_id", "string"), span("parent_span_id", "string"),
	span("timestamp", "number"), span("has_error", "bool"), span("duration_nano", "number"),
	resource("service.name", signoz.SignalTraces),
}

// overviewThen plans service_overview's follow-up stages: after the first
// stage's answers, the failing spans of each examined co-regressed service from
// the onset on; after those, every span of their traces.
func overviewThen(c Call, lim Limits) func([]signoz.Response) ([]Query, error) {
	return func(resps []signoz.Response) ([]Query, error) {
		// The quality stage first: the series of the attributes the
		// sample shows (it places the onset, so it precedes the rest).
		keys, retry := sampleKeys(resps[overviewQueries-1])
		if len(resps) == overviewQueries && len(keys)+len(retry) > 0 {
			svc, ow := serviceFilter(c.Service), OnsetWindow(c)
			return append(append(qualityQueries(svc, ow, keys), retryAttrQueries(svc, ow, retry)...), retryPeerQueries(svc, ow, retry)...), nil
		}
		base := overviewQueries + stageTwoCount(keys, retry)
		st, err := sharedOverviewBase(c, resps[:overviewQueries], resps[overviewQueries:base])
		if err != nil || st.onset.At == nil {
			return nil, err
		}
		from, to := st.onset.At.UnixMilli(), c.Incident.To.UnixMilli()
		switch len(resps) {
		case base:
			// The onset's own spans first (RefineOnset), then the failing
			// spans of each examined service.
			qs := []Query{refineQuery(c, st.onset)}
			for _, svc := range st.examined {
				qs = append(qs, Query{Name: "failing_" + svc, Request: signoz.NewRequest(signoz.RequestRaw, from, to, signoz.BuilderQuery{Name: "A", Signal: signoz.SignalTraces,
					Filter: signoz.Filter{Expression: failing(svc, st.alt.thresholds[svc])}, Limit: PropagationTraces, Order: desc("timestamp"), SelectFields: traceFields})})
			}
			// Then the alerted service's own failing spans, since the onset
			// and in the baseline: where its failures begin (origin.go).
			// Last, each examined service's failing spans a minute
			// (fewercalls.go).
			return append(append(qs, originQueries(c, st.onset)...), failingCountQueries(c, st)...), nil
		case base + 1 + 2*len(st.examined) + 2:
			var qs []Query
			q, err := propagationTracesQuery(c, lim, st, resps[base+1:base+1+len(st.examined)])
			if err != nil {
				return nil, err
			}
			if q != nil {
				qs = append(qs, *q)
			}
			since, before, err := originIDSets(c, resps[base+1+len(st.examined):])
			if err != nil {
				return nil, err
			}
			if ids := append(slices.Clone(since), before...); len(ids) > 0 {
				qs = append(qs, originTracesQuery(c, lim, st.onset, ids))
			}
			return qs, nil
		}
		return nil, nil
	}
}

// propagationTracesQuery reads every span of the examined services' failing
// traces (resps: their failing spans); nil when there are none.
func propagationTracesQuery(c Call, lim Limits, st overviewState, resps []signoz.Response) (*Query, error) {
	if len(st.examined) == 0 {
		return nil, nil
	}
	ids, err := failingTraces(c, lim, st, resps)
	if err != nil {
		return nil, err
	}
	var all []string
	for _, svc := range st.examined {
		for _, id := range ids[svc] {
			if !slices.Contains(all, id) {
				all = append(all, id)
			}
		}
	}
	if len(all) == 0 {
		return nil, nil
	}
	var q []string
	for _, id := range all {
		q = append(q, Quote(id))
	}
	f := and("trace_id IN ("+strings.Join(q, ", ")+")", excludeFilter(lim.Exclude))
	return &Query{Name: "failing_traces", Request: signoz.NewRequest(signoz.RequestRaw, st.onset.At.Add(-5*time.Minute).UnixMilli(), c.Incident.To.UnixMilli(),
		signoz.BuilderQuery{Name: "A", Signal: signoz.SignalTraces, Filter: signoz.Filter{Expression: f}, Limit: PropagationSpans, Order: desc("timestamp"), SelectFields: traceFields})}, nil
}

// failingTraces reads the trace ids of each examined service's failing spans.
func failingTraces(c Call, lim Limits, st overviewState, resps []signoz.Response) (map[string][]string, error) {
	out := map[string][]string{}
	for i, svc := range st.examined {
		rows, err := rawRows(resps, i)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			id := attrString(r.Data, "trace_id")
			if id == "" || resourceValue(r.Data, "service.name") != svc || Excluded(svc, lim.Exclude) || slices.Contains(out[svc], id) {
				continue
			}
			out[svc] = append(out[svc], id)
		}
	}
	return out, nil
}

type traceSpan struct {
	id, parent, service string
	failing             bool
	// op ("name KIND"), err (the span's own error), start and dur are read
	// where the query selected them (origin.go).
	op    string
	err   bool
	start time.Time
	dur   time.Duration
}

// propagation is, per examined service, how many of its failing traces hold
// a failing span of the affected service beneath one of its own spans, and how
// many were examined.
type propagation struct {
	beneath, under, traces int
	load                   float64
	// effect counts the traces where svc fails on a call of the affected
	// service that it abandoned, cause those where svc fails on a call that
	// was not abandoned (downstream.go).
	effect, cause int
}

// judged is judgePropagation's split of the co-regressed services.
type judged struct {
	shared, propagated, downstream []string
	// abandoned are the downstream callees whose calls the service
	// abandons (their failing client spans are its own giving up); fewer
	// are those it only calls less (fewercalls.go).
	abandoned, fewer []string
	seen             map[string]propagation
}

// judgePropagation splits the co-regressed services into those whose
// regression came through their calls into svc (propagated), the callees
// that regressed only as its effect (downstream; never origin, the callee
// where svc's failures begin) and the rest.
func judgePropagation(c Call, lim Limits, st overviewState, follow []signoz.Response, origin *contracts.FailureOrigin, fell map[string]*callsFell) (judged, error) {
	out := judged{seen: map[string]propagation{}}
	if len(follow) < len(st.examined)+1 {
		out.shared = st.alt.coRegressed
		return out, nil
	}
	ids, err := failingTraces(c, lim, st, follow[:len(st.examined)])
	if err != nil {
		return out, err
	}
	rows, err := rawRows(follow, len(st.examined))
	if err != nil {
		return out, err
	}
	byTrace := spansByTrace(c, st, rows)
	for _, svc := range st.alt.coRegressed {
		if !slices.Contains(st.examined, svc) {
			out.shared = append(out.shared, svc)
			continue
		}
		p := judgeOne(c, st, svc, ids[svc], byTrace)
		out.seen[svc] = p
		caller := float64(p.beneath) >= PropagationShare*float64(p.traces)
		loaded := float64(p.under) >= PropagationShare*float64(p.traces) && p.load >= LoadRatio
		switch {
		case p.traces > 0 && (caller || loaded):
			out.propagated = append(out.propagated, svc)
		case (origin == nil || origin.Service != svc) && isDownstream(p):
			out.downstream, out.abandoned = append(out.downstream, svc), append(out.abandoned, svc)
		case (origin == nil || origin.Service != svc) && !slices.Contains(st.failingDeps, svc) && fewerCalls(fell[svc]):
			out.downstream, out.fewer = append(out.downstream, svc), append(out.fewer, svc)
		default:
			out.shared = append(out.shared, svc)
		}
	}
	return out, nil
}

// spansByTrace indexes the fetched spans by trace and span id, each marked
// failing by an error or by its own service's p95 threshold.
func spansByTrace(c Call, st overviewState, rows []signoz.RawRow) map[string]map[string]traceSpan {
	byTrace := map[string]map[string]traceSpan{}
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
		// Each span is judged against its own service's threshold.
		thr := st.onset.P95ThresholdMs
		if s.service != c.Service {
			thr = st.alt.thresholds[s.service]
		}
		if v, ok := num(attrValue(d, "duration_nano")); ok && thr > 0 && v/1e6 >= thr {
			s.failing = true
		}
		if byTrace[tid] == nil {
			byTrace[tid] = map[string]traceSpan{}
		}
		byTrace[tid][sid] = s
	}
	return byTrace
}

// judgeOne counts, over svc's failing traces, those that hold the affected
// service's failing spans beneath svc's and those where svc fails beneath
// the affected service's calls.
func judgeOne(c Call, st overviewState, svc string, traces []string, byTrace map[string]map[string]traceSpan) propagation {
	var p propagation
	base := baselineP95(st.alt.onsets)
	for _, tid := range traces {
		p.traces++
		if beneath(byTrace[tid], c.Service, svc) {
			p.beneath++
		}
		if beneath(byTrace[tid], svc, c.Service) {
			p.under++
		}
		effect, cause := effectOf(byTrace[tid], svc, c.Service, base)
		if effect {
			p.effect++
		}
		if cause {
			p.cause++
		}
	}
	if l := st.alt.load[svc]; l != nil {
		p.load = *l
	}
	return p
}

// beneath reports whether a failing span of svc in trace has an ancestor span
// of caller: the caller's failure came through its call into svc (or, read
// the other way, svc failed beneath caller's calls).
func beneath(trace map[string]traceSpan, svc, caller string) bool {
	for _, s := range trace {
		if s.service != svc || !s.failing {
			continue
		}
		cur := s
		for hop := 0; hop < 64 && cur.parent != ""; hop++ {
			p, ok := trace[cur.parent]
			if !ok {
				break
			}
			if p.service == caller {
				return true
			}
			cur = p
		}
	}
	return false
}

func propagationLine(svc string, propagated []string, seen map[string]propagation) string {
	var parts []string
	for _, p := range propagated {
		if pr := seen[p]; float64(pr.beneath) >= PropagationShare*float64(pr.traces) {
			parts = append(parts, fmt.Sprintf("%s (%d of %d failing traces hold %s's failing spans beneath its own)", p, pr.beneath, pr.traces, svc))
		} else {
			parts = append(parts, fmt.Sprintf("%s (%d of %d failing traces fail beneath %s's calls, which rose %sx)", p, pr.under, pr.traces, svc, fmtF(pr.load)))
		}
	}
	return "regressed with " + svc + " only through its calls (propagation, not a shared cause): " + strings.Join(parts, ", ")
}
