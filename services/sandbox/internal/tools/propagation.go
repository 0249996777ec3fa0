package tools

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"agentk/contracts"
	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"
)

// Propagation: a service that regressed with the affected one because it
// calls it (its failing traces hold the affected service's failing spans
// beneath its own) is no shared cause; the overview asks for those traces in
// two follow-up stages, and facts.JudgePropagation drops such services from
// the co-regressed ones.
const (
	// MaxPropagationServices is how many co-regressed services are examined;
	// any beyond stay co-regressed (fail closed).
	MaxPropagationServices = 5
	// PropagationTraces is how many failing traces of each are examined.
	PropagationTraces = 20
	// PropagationSpans bounds the spans read of those traces.
	PropagationSpans = 1000
)

// overviewState is what the first stage's answers of service_overview say:
// the onset, the alternatives and the release comparison. Both Then and Build derive it, from the same
// answers, the same way.
type overviewState struct {
	minutes []Minute
	onset   Onset
	alt     facts.AlternativeFacts
	release *contracts.ReleaseErrors
	// versions are the entry spans per minute by service.version
	// (facts.VersionCounts of the first stage's answer), read once; nil
	// when that answer could not be read.
	versions map[string]map[int64]float64
	// failingDeps are the peers failing at their usual call rate;
	// retriedDeps those failing whose calls rose above it, judged with
	// the peers' series (peers: the service's client spans by peer, a
	// minute) and the inbound requests (inbound).
	failingDeps []string
	retriedDeps []string
	peers       map[string][]Minute
	inbound     []Minute
	// keyOf is the peer key each peer's series came from.
	keyOf map[string]string
	// slowDeps are the peers slower at their usual call rate.
	slowDeps []facts.SlowDependency
	// pool is what the service's connection-pool spans showed.
	pool *contracts.PoolWaits
	// restarts are the running version's processes replaced since the onset.
	restarts []contracts.ProcessRestart
	// pressure counts the logs naming a resource under pressure.
	pressure *contracts.ResourcePressure
	// configChanges are the minutes the service logged a runtime
	// configuration change, around the onset.
	configChanges []contracts.LogMinute
	// regions are the service's entry spans per region on both sides
	// of the onset.
	regions []contracts.RegionTraffic
	// nodes are the service's entry spans and errors per node and
	// version since the onset.
	nodes []contracts.NodeTraffic
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
	// versionKey is the fallback key (faas.version, container.image.tag)
	// the versions were read from (facts.FallbackVersionKey), else empty.
	versionKey string
	// logged are the logged arrivals' queries (loggedQueries), planned
	// once from this state: the follow-up stage asks them, and the split
	// of its answers and their reading count them.
	logged []Query
}

// overviewBase derives the state from the first stage's answers (resps) and
// the quality stage's (qual, one per key of qualityKeys of the sample).
func overviewBase(c Call, resps, qual []signoz.Response) (overviewState, error) {
	var st overviewState
	var err error
	first, arrivals := firstAnswers(resps), entryArrivals(resps)
	first, st.versionKey = withFallbackVersions(first)
	if st.minutes, err = perMinute(first.of(qMinutes), first.of(qMinuteErr)); err != nil {
		return st, err
	}
	entryErrs, err := errorsBySignature(first.of(qVersionEr))
	if err != nil {
		return st, err
	}
	st.onset = facts.SignatureOnset(facts.FindOnset(st.minutes, c.StartsAt, DefaultMargins), st.minutes, entryErrs, c.StartsAt, DefaultMargins)
	var rj *facts.Rejections
	if st.departures, rj, err = operationDepartures(c, first); err != nil {
		return st, err
	}
	st.onset = facts.EarliestOnset(st.onset, st.departures)
	keys, retry := sampleKeys(first.of(qQualitySample))
	qual = qual[:min(len(qual), stageTwoCount(keys, retry))]
	if st.quality, err = qualityDepartures(keys, qual[:min(len(qual), len(keys))], c.StartsAt, DefaultMargins); err != nil {
		return st, err
	}
	st.onset = facts.EarliestWithQuality(st.onset, st.quality)
	if st.onset, err = withRetryOnset(st.onset, retry, qual[min(len(qual), len(keys)):min(len(qual), len(keys)+len(retry))], first.of(qRetryLogs), first.of(qRoots), first.of(qVersions), arrivals, c.StartsAt); err != nil {
		return st, err
	}
	st.onset = earliestWithRule(st.onset, ruleOnsetOf(c, st.minutes))
	if st.onset.At == nil {
		return st, nil
	}
	peers, keyOf, err := outboundPeers(first)
	if err != nil {
		return st, err
	}
	// A client that retries inside one span makes as many attempts as
	// the span's retry count says: the calls to its peer are the attempts.
	if err := addRetryAttempts(peers, qual[min(len(qual), len(keys)+len(retry)):]); err != nil {
		return st, err
	}
	st.onset, st.slowDeps = slowDependencyOnset(c, st.onset, peers, keyOf, st.minutes)
	if st.alt, err = alternatives(first.of(qRoots), first.of(qVersions), arrivals, first.of(qOthers), first.of(qOthersErr), c.StartsAt, st.onset); err != nil {
		return st, err
	}
	if st.release, err = releaseErrors(first.of(qVersions), first.of(qVersionEr), rj, *st.onset.At); err != nil {
		return st, err
	}
	st.release = keyedRelease(st.release, st.versionKey)
	if c, err := facts.VersionCounts(first.of(qVersions)); err == nil {
		st.versions = c
	}
	if st.pool, err = poolWaits(first.of(qPool), first.of(qPoolErrs), entryErrs, st.onset); err != nil {
		return st, err
	}
	if st.restarts, err = runningRestarts(first.of(qVersions), first.of(qProcesses), st.release, *st.onset.At); err != nil {
		return st, err
	}
	if st.pressure, err = resourcePressure(first.of(qPressure), st.onset, st.minutes); err != nil {
		return st, err
	}
	st.runtimeRefused = first.of(qRuntime).Refused
	if st.runtime, err = runtimeSaturation(first.of(qRuntime), st.onset); err != nil {
		return st, err
	}
	if err = st.readMoved(first); err != nil {
		return st, err
	}
	inbound, err := inboundMinutes(first.of(qRoots), first.of(qVersions), arrivals, st.onset.BaselineFrom, *st.onset.At)
	if err != nil {
		return st, err
	}
	if st.retries, err = retryRise(retry, qual[min(len(qual), len(keys)):min(len(qual), len(keys)+len(retry))], first.of(qRetryLogs), inbound, st.onset); err != nil {
		return st, err
	}
	st.failingDeps, st.retriedDeps, st.peers, st.inbound, st.keyOf = facts.FailingDependencies(peers, c.StartsAt, st.onset), facts.RetriedPeers(peers, c.StartsAt, st.onset), peers, inbound, keyOf
	st.peakCall, st.peakPeer = facts.PeakCalls(peers, inbound, st.onset)
	st.examined = st.alt.CoRegressed[:min(len(st.alt.CoRegressed), MaxPropagationServices)]
	st.logged = loggedQueries(c, st)
	return st, nil
}

// entryArrivals are the first stage's answers that turn the entry spans
// into arrivals (facts.EntryArrivals).
func entryArrivals(first firstAnswers) facts.EntryArrivals {
	return facts.EntryArrivals{Attempts: first.of(qAttempts), Batches: first.of(qBatches)}
}

// withFallbackVersions returns the first stage's answers (first) with, for
// a service whose entry spans name no service.version, the entry spans by
// the first fallback key that names a value (faas.version,
// container.image.tag) and their errors in place of those by
// service.version (facts.FallbackVersionKey), and that key; first is not
// changed.
func withFallbackVersions(first firstAnswers) (firstAnswers, string) {
	keys := contracts.FallbackVersionKeys()
	var series []signoz.Response
	for _, k := range keys {
		series = append(series, first.of(fallbackQueryNames[k][0]))
	}
	key := facts.FallbackVersionKey(first.of(qVersions), series)
	if !slices.Contains(keys, key) {
		return first, ""
	}
	out, names := slices.Clone(first), fallbackQueryNames[key]
	out[overviewAt(qVersions)], out[overviewAt(qVersionEr)] = first.of(names[0]), first.of(names[1])
	return out, key
}

// keyedRelease is r naming the key its versions were read from (empty for
// service.version).
func keyedRelease(r *contracts.ReleaseErrors, key string) *contracts.ReleaseErrors {
	if r != nil && key != "" {
		r.VersionKey = key
	}
	return r
}

// outboundPeers reads the series of the service's calls by peer
// (peerSeries) less the peers that are the service calling itself
// (grpc-gateway's loopback call into its own gRPC server;
// facts.SelfCallPeers over the first stage's sample of its spans, which a
// refusal leaves unread: every peer stays).
func outboundPeers(first firstAnswers) (map[string][]Minute, map[string]string, error) {
	peers, keyOf, err := peerSeries(first)
	if err != nil {
		return nil, nil, err
	}
	if rows, err := rawRows(first, overviewAt(qSelfCalls)); err == nil {
		for _, p := range facts.SelfCallPeers(rows, SelfCallKeys) {
			delete(peers, p)
			delete(keyOf, p)
		}
	}
	return peers, keyOf, nil
}

// readMoved reads what else moved at the onset from the first stage's
// answers: the config-change logs, the entry spans by region, the entry
// spans by node, then by machine with and without a version.
func (st *overviewState) readMoved(first firstAnswers) error {
	var err error
	if st.configChanges, err = configChanges(first.of(qConfigChg), *st.onset.At); err != nil {
		return err
	}
	if st.regions, err = regionTraffic(first.of(qRegions), st.onset); err != nil {
		return err
	}
	st.nodes, err = nodeTraffic(first.of(qNodes), first.of(qHosts), first.of(qHostsBare), st.onset)
	return err
}

// slowDependencyOnset is the onset, moved to where the calls to a slow
// dependency left their own baseline when that is earlier
// (facts.EarliestWithSlowDependency), and the slow dependencies judged
// against it. Its spans are the outbound spans that name the peer by the
// key its series came from (keyOf): SigNoz refuses a filter on a key it
// never saw.
func slowDependencyOnset(c Call, on Onset, peers map[string][]Minute, keyOf map[string]string, entry []Minute) (Onset, []facts.SlowDependency) {
	slow := facts.SlowDependencies(peers, entry, c.StartsAt, on)
	calls := func(peer string) string { return and(outboundFor(keyOf[peer]), keyOf[peer]+" = "+Quote(peer)) }
	moved := facts.EarliestWithSlowDependency(on, peers, slow, c.StartsAt, calls)
	if moved.At.Equal(*on.At) {
		return on, slow
	}
	return moved, facts.SlowDependencies(peers, entry, c.StartsAt, moved)
}

// operationDepartures reads operationQueries' answers among the first
// stage's: the operations' series, the versions' answers and the servers'
// rejections (facts.ReadRejections), and judges the departures.
func operationDepartures(c Call, first firstAnswers) ([]opDeparture, *facts.Rejections, error) {
	ops, filters, err := operationSeries(first)
	if err != nil {
		return nil, nil, err
	}
	vs, err := readOpVersions(first.of(qOpVersions), first.of(qOpVersionErrs))
	if err != nil {
		return nil, nil, err
	}
	var status []signoz.Response
	for _, k := range facts.StatusKeys {
		status = append(status, first.of(statusQueryName(k)))
	}
	rj, err := facts.ReadRejections(status)
	if err != nil {
		return nil, nil, badResponse(err)
	}
	return facts.OperationDeparturesWithStatus(ops, rj, filters, vs, c.StartsAt, DefaultMargins), rj, nil
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

// propagationFields are the columns of every span of the examined
// services' failing traces: traceFields, and what says a server span
// rejected its request (facts.StatusRejected), for an onset the rejections
// placed.
var propagationFields = append(slices.Clone(traceFields), span("kind_string", "string"),
	tag("rpc.grpc.status_code", "number"), tag("rpc.response.status_code", "string"))

// overviewThen plans service_overview's follow-up stages: after the first
// stage's answers, the failing spans of each examined co-regressed service from
// the onset on; after those, every span of their traces.
func overviewThen(c Call, lim Limits) func([]signoz.Response) ([]Query, error) {
	return func(resps []signoz.Response) ([]Query, error) {
		// The quality stage first: the series of the attributes the
		// sample shows (it places the onset, so it precedes the rest).
		// The consumer lag's query closes it (consumerlag_plan.go).
		sample := firstAnswers(resps).of(qQualitySample)
		keys, retry := sampleKeys(sample)
		// The consumer's arrivals and redeliveries follow it (arrivals_plan.go).
		lag := append(lagQueries(c, lim, sample), arrivalQueries(c, lim, sample)...)
		if len(resps) == overviewQueries && len(keys)+len(retry)+len(lag) > 0 {
			svc, ow := serviceFilter(c.Service), OnsetWindow(c)
			return append(append(append(qualityQueries(svc, ow, keys), retryAttrQueries(svc, ow, retry)...), retryPeerQueries(svc, ow, retry)...), lag...), nil
		}
		two := overviewQueries + stageTwoCount(keys, retry)
		base := two + len(lag)
		st, err := sharedOverviewBase(c, resps[:overviewQueries], resps[overviewQueries:two])
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
					Filter: signoz.Filter{Expression: failing(svc, st.alt.Thresholds[svc])}, Limit: PropagationTraces, Order: desc("timestamp"), SelectFields: traceFields})})
			}
			// Then the alerted service's own failing spans, since the onset
			// and in the baseline: where its failures begin (origin_plan.go).
			// Last, each examined service's failing spans a minute
			// (fewercalls_plan.go).
			// Then the logged arrivals, when the kept traffic rose
			// (loggedarrivals_plan.go).
			return append(append(append(qs, originQueries(c, st.onset)...), failingCountQueries(c, st)...), st.logged...), nil
		case base + 1 + 2*len(st.examined) + 2 + len(st.logged):
			// The consistent peer calls first, when the consistent
			// arrivals were believed (consistentarrivals_plan.go).
			at := base + 1 + 2*len(st.examined) + 2
			cq, _, _, _, err := consistentPeerPlan(c, st, resps[at+loggedAsked(st):at+len(st.logged)])
			if err != nil {
				return nil, err
			}
			var qs []Query
			if cq != nil {
				qs = append(qs, *cq)
			}
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
			if q := faultQuery(c, st, cq != nil); q != nil {
				qs = append(qs, *q)
			}
			return append(append(qs, newCallQueries(c, st)...), sentQueries(c, st)...), nil
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
		signoz.BuilderQuery{Name: "A", Signal: signoz.SignalTraces, Filter: signoz.Filter{Expression: f}, Limit: PropagationSpans, Order: desc("timestamp"), SelectFields: propagationFields})}, nil
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

// judgePropagation reads the examined services' failing traces (follow:
// their failing spans, then every span of those traces) and has
// facts.JudgePropagation split the co-regressed services; without the
// traces every one stays shared.
func judgePropagation(c Call, lim Limits, st overviewState, follow []signoz.Response, origin *contracts.FailureOrigin, fell map[string]*facts.CallsFell, refusals map[string]float64) (facts.Judged, error) {
	if len(follow) < len(st.examined)+1 {
		return facts.Judged{Shared: st.alt.CoRegressed, Seen: map[string]facts.Propagation{}}, nil
	}
	ids, err := failingTraces(c, lim, st, follow[:len(st.examined)])
	if err != nil {
		return facts.Judged{}, err
	}
	rows, err := rawRows(follow, len(st.examined))
	if err != nil {
		return facts.Judged{}, err
	}
	return facts.JudgePropagation(facts.PropagationInput{Service: c.Service, ThrMs: st.onset.P95ThresholdMs, CoRegressed: st.alt.CoRegressed, Examined: st.examined,
		IDs: ids, Rows: rows, Thresholds: st.alt.Thresholds, Onsets: st.alt.Onsets, Load: st.alt.Load, Origin: origin, FailingDeps: st.failingDeps, Fell: fell,
		Refusals: refusals, PeerFell: peerFell(st, refusals), Series: st.alt.Series, AlertAt: c.StartsAt, Rejections: st.onset.Status != ""}), nil
}

// peerFell is, for each refusing peer, the service's client spans to it
// around the peer's own onset (facts.OthersHeld takes their errors off the
// peer's error spans).
func peerFell(st overviewState, refusals map[string]float64) map[string]*facts.CallsFell {
	out := map[string]*facts.CallsFell{}
	for p := range refusals {
		if o, ok := st.alt.Onsets[p]; ok {
			out[p] = facts.CallsFellOf(st.peers[p], o)
		}
	}
	return out
}

// refusedLine says which callees refused svc's requests as sent, with each
// one's error spans a minute from its other callers since and before its
// onset (facts.OthersFailed over its own series and svc's calls to it).
func refusedLine(svc string, refused []string, st overviewState, refusals map[string]float64) string {
	pf := peerFell(st, refusals)
	var parts []string
	for _, r := range refused {
		part := r
		callee := facts.CallsFellOf(st.alt.Series[r], st.alt.Onsets[r])
		if since, before, ok := facts.OthersFailed(callee, pf[r], refusals[r]); ok {
			part = fmt.Sprintf("%s (its other callers' error spans: %s a minute against %s before)", r, fmtF(round(since/callee.MinutesSince)), fmtF(round(before/callee.MinutesBefore)))
		}
		parts = append(parts, part)
	}
	return "callees that refuse " + svc + "'s requests as sent since the onset (4xx, gRPC INVALID_ARGUMENT and the like) while their other callers' errors a minute did not rise and their latency held (downstream of " + svc + ", not a shared cause; still the origin): " + strings.Join(parts, ", ")
}

// propagationLine says which co-regressed services regressed only through
// their calls into svc.
func propagationLine(svc string, propagated []string, seen map[string]facts.Propagation) string {
	var parts []string
	for _, p := range propagated {
		if pr := seen[p]; float64(pr.Beneath) >= facts.PropagationShare*float64(pr.Traces) {
			parts = append(parts, fmt.Sprintf("%s (%d of %d failing traces hold %s's failing spans beneath its own)", p, pr.Beneath, pr.Traces, svc))
		} else {
			parts = append(parts, fmt.Sprintf("%s (%d of %d failing traces fail beneath %s's calls, which rose %sx)", p, pr.Under, pr.Traces, svc, fmtF(pr.Load)))
		}
	}
	return "regressed with " + svc + " only through its calls (propagation, not a shared cause): " + strings.Join(parts, ", ")
}

// downstreamLine says which callees regressed only as svc's effect.
func downstreamLine(svc string, downstream []string, seen map[string]facts.Propagation) string {
	var parts []string
	for _, d := range downstream {
		p := seen[d]
		parts = append(parts, fmt.Sprintf("%s (%d of %d failing traces fail on calls %s abandoned)", d, p.Effect, p.Traces, svc))
	}
	return "callees that regressed only as an effect of " + svc + " (it abandons its calls to them since the onset; downstream, not a shared cause): " + strings.Join(parts, ", ")
}
