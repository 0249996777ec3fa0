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

// A service's arrivals read from the traces a consistent sampler kept by
// their trace id alone (the measurement and why it is believed only when
// the trace structure shows the reading: facts.ConsistentArrivals). Asked
// with the logged arrivals (loggedQueries, after them in the overview's
// second follow-up stage), only when the kept entry spans rose to
// LoggedArrivalsFrom times their baseline: two samples of kept entry spans
// with their trace id, error flag and duration, the latest
// ConsistentSpans of the baseline (from its start to CoverageSlack before
// the onset) and of a window since the onset (from CoverageSlack after it,
// at least ConsistentWindow long, or coverageWindow when longer).

// Consistent-arrivals planning: each sample's row limit and the shortest
// window since the onset.
const (
	ConsistentSpans  = 1000
	ConsistentWindow = 5 * time.Minute
)

const (
	qConsistentBase  = "consistent_baseline_entry_traces"
	qConsistentSince = "consistent_entry_traces"
)

var consistentFields = []signoz.FieldKey{span("trace_id", "string"), span("has_error", "bool"), span("duration_nano", "number")}

// consistentWindows are the two samples' windows: the baseline's and the
// one since the onset.
func consistentWindows(c Call, st overviewState) (baseFrom, baseTo, sinceFrom, sinceTo time.Time) {
	onset := *st.onset.At
	baseFrom, baseTo = st.onset.BaselineFrom, onset.Add(-CoverageSlack)
	sinceFrom, sinceTo = onset.Add(CoverageSlack), onset.Add(CoverageSlack+max(ConsistentWindow, coverageWindow(st)))
	if sinceTo.After(c.Incident.To) {
		sinceTo = c.Incident.To
	}
	return baseFrom, baseTo, sinceFrom, sinceTo
}

// consistentQueries are the two samples; asked only with loggedQueries
// (whose conditions they share), each optional.
func consistentQueries(c Call, st overviewState) []Query {
	bf, bt, sf, strs := consistentWindows(c, st)
	return []Query{entrySample(c, qConsistentBase, bf, bt, ConsistentSpans, consistentFields), entrySample(c, qConsistentSince, sf, strs, ConsistentSpans, consistentFields)}
}

// consistentSamples reads consistentQueries' answers (resps) into the
// consistent arrivals and the two samples they were counted in; a nil
// fact when either was refused or missing or nothing was believed.
func consistentSamples(c Call, st overviewState, resps []signoz.Response) (*contracts.ConsistentArrivals, facts.TraceSample, facts.TraceSample, error) {
	var base, since facts.TraceSample
	if len(resps) < 2 || st.onset.At == nil {
		return nil, base, since, nil
	}
	for _, r := range resps[:2] {
		if r.Refused != "" {
			return nil, base, since, nil
		}
	}
	bf, bt, sf, strs := consistentWindows(c, st)
	base, err := traceSample(resps, 0, bf, bt)
	if err != nil {
		return nil, base, since, err
	}
	if since, err = traceSample(resps, 1, sf, strs); err != nil {
		return nil, base, since, err
	}
	return facts.ConsistentArrivals(base, since), base, since, nil
}

// The service's calls to its peers within the counted traces
// (facts.ConsistentPeers): asked first in the overview's third stage when
// the consistent arrivals were believed, the service's outbound spans in
// both samples' traces under the threshold (at most 2 ConsistentSpans
// trace ids), from the baseline sample's window's start to a minute after
// the since sample's, the latest ConsistentPeerSpans of them with the
// fault query's columns (faultFields: the peer, the outcome, the
// duration). An answer at its limit is cut: the peers are then not read
// (fail closed: no lift).
const (
	ConsistentPeerSpans = 10000
	qConsistentPeers    = "consistent_peer_calls"
)

// consistentPeerPlan reads consistentQueries' answers (resps) into the
// service's consistent arrivals (nil when either was refused or missing,
// or no reading was believed) and, when they were believed, the
// consistent peer calls' query and the counted traces of each sample (a
// nil query otherwise).
func consistentPeerPlan(c Call, st overviewState, resps []signoz.Response) (*Query, *contracts.ConsistentArrivals, *facts.CountedSample, *facts.CountedSample, error) {
	a, base, since, err := consistentSamples(c, st, resps)
	if err != nil || a == nil {
		return nil, nil, nil, nil, err
	}
	b, s := facts.CountedTraces(a, base), facts.CountedTraces(a, since)
	if b == nil || s == nil || len(b.IDs)+len(s.IDs) == 0 {
		return nil, a, nil, nil, nil
	}
	var ids []string
	for _, m := range []map[string]facts.SampledTrace{b.IDs, s.IDs} {
		for id := range m {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	q := make([]string, len(ids))
	for i, id := range ids {
		q[i] = Quote(id)
	}
	bf, _, _, strs := consistentWindows(c, st)
	f := and(serviceFilter(c.Service), outboundCalls(), "trace_id IN ("+strings.Join(q, ", ")+")")
	return &Query{Name: qConsistentPeers, Optional: true, Request: signoz.NewRequest(signoz.RequestRaw, bf.UnixMilli(), strs.Add(CoverageSlack).UnixMilli(),
		signoz.BuilderQuery{Name: "A", Signal: signoz.SignalTraces, Filter: signoz.Filter{Expression: f}, Limit: ConsistentPeerSpans, Order: desc("timestamp"), SelectFields: faultFields})}, a, b, s, nil
}

// readConsistentPeers reads the consistent peer calls' answer (resps[0])
// into a's peers (a.PeersRead when the answer was neither refused nor
// cut).
func readConsistentPeers(c Call, a *contracts.ConsistentArrivals, base, since *facts.CountedSample, resps []signoz.Response) error {
	if a == nil || len(resps) == 0 || resps[0].Refused != "" {
		return nil
	}
	rows, err := rawRows(resps, 0)
	if err != nil {
		return err
	}
	a.Peers = facts.ConsistentPeers(rows, c.Service, PeerKeys, base, since)
	a.PeersRead = len(rows) < ConsistentPeerSpans
	return nil
}

// traceSample reads one sample's rows (resps[i]) over [from, to).
func traceSample(resps []signoz.Response, i int, from, to time.Time) (facts.TraceSample, error) {
	rows, err := rawRows(resps, i)
	if err != nil {
		return facts.TraceSample{}, err
	}
	s := facts.TraceSample{From: from, To: to, Limit: ConsistentSpans}
	for _, r := range rows {
		t := facts.SampledTrace{TraceID: attrString(r.Data, "trace_id"), At: rowTime(r)}
		if v, ok := attrValue(r.Data, "has_error").(bool); ok {
			t.Error = v
		}
		if v, ok := num(attrValue(r.Data, "duration_nano")); ok {
			t.Duration = time.Duration(v)
		}
		if t.TraceID != "" {
			s.Traces = append(s.Traces, t)
		}
	}
	return s, nil
}

// consistentLine renders the service's consistent arrivals for the model.
func consistentLine(a *contracts.ConsistentArrivals) string {
	if a == nil {
		return ""
	}
	return fmt.Sprintf("arrivals since the onset vs baseline read from the traces a consistent sampler kept by trace id alone (%s under %s): %sx, at most %sx (%d of %d sampled kept entry spans over %s min since the onset; %d of %d over %s min in the baseline): inbound traffic the sampler's error policy does not inflate",
		a.Reading, fmtF(a.Threshold), fmtF(a.Ratio), fmtF(a.Upper), a.Counted, a.Sampled, fmtF(a.Minutes), a.BaselineCounted, a.BaselineSampled, fmtF(a.BaselineMinutes))
}
