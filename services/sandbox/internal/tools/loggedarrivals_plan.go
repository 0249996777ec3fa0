package tools

import (
	"fmt"
	"math"
	"slices"
	"time"

	"agentk/contracts"
	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"
)

// A service's arrivals read from its logs (the measurement and why it is
// believed only when shown complete: facts.LoggedArrivals). Asked in the
// overview's second follow-up stage, after the failing counts, only when
// the kept entry spans rose to LoggedArrivalsFrom times their baseline: the
// per-minute distinct trace ids of the service's log records, and two
// coverage samples, one in the baseline and one since the onset, each the
// trace ids of up to CoverageSpans kept entry spans over a window of
// coverageWindow and of the service's log records over the same window
// widened by CoverageSlack on both sides (a record is written as its request
// ends).

// Logged-arrivals planning: the kept-traffic ratio from which the logs are
// read, the coverage windows' bounds (coverageWindow) and the answers'
// limits. A log answer that comes back at CoverageLogs rows is cut, and
// proves nothing.
const (
	LoggedArrivalsFrom = 1.5
	MinCoverageWindow  = 3 * time.Minute
	MaxCoverageWindow  = 30 * time.Minute
	CoverageSlack      = time.Minute
	CoverageSpans      = 200
	CoverageLogs       = 5000
)

const (
	qLoggedArrivals = "per_minute_logged_trace_ids"
	qCoverBaseSpans = "coverage_baseline_entry_traces"
	qCoverBaseLogs  = "coverage_baseline_logged_traces"
	qCoverSpans     = "coverage_entry_traces"
	qCoverLogs      = "coverage_logged_traces"
)

var (
	loggedTrace = "trace_id != ''"
	logTraceID  = []signoz.FieldKey{{Name: "trace_id", FieldDataType: "string", Signal: signoz.SignalLogs, FieldContext: "log"}}
	spanTraceID = []signoz.FieldKey{span("trace_id", "string")}
)

// loggedQueries are the five queries above, then consistentQueries; none
// unless st's kept traffic ratio is known and at least LoggedArrivalsFrom.
// Each is optional: a refusal leaves the logs unread. overviewBase plans
// them once, into st.logged, which the stage, the split and the read use.
func loggedQueries(c Call, st overviewState) []Query {
	r := st.alt.TrafficRatio
	if st.onset.At == nil || r == nil || *r < LoggedArrivalsFrom {
		return nil
	}
	svc, ow, onset, win := serviceFilter(c.Service), OnsetWindow(c), *st.onset.At, coverageWindow(st)
	baseFrom := onset.Add(-win - CoverageSlack)
	if baseFrom.Before(st.onset.BaselineFrom) {
		baseFrom = st.onset.BaselineFrom
	}
	sinceTo := onset.Add(CoverageSlack + win)
	if sinceTo.After(c.Incident.To) {
		sinceTo = c.Incident.To
	}
	spans := func(name string, from, to time.Time) Query {
		return entrySample(c, name, from, to, CoverageSpans, spanTraceID)
	}
	logs := func(name string, from, to time.Time) Query {
		return Query{Name: name, Optional: true, Request: signoz.NewRequest(signoz.RequestRaw, from.UnixMilli(), to.UnixMilli(), signoz.BuilderQuery{Name: "A", Signal: signoz.SignalLogs,
			Filter: signoz.Filter{Expression: and(svc, loggedTrace)}, Limit: CoverageLogs, Order: desc("timestamp"), SelectFields: logTraceID})}
	}
	return append([]Query{
		{Name: qLoggedArrivals, Optional: true, Request: signoz.NewRequest(signoz.RequestTimeSeries, ow.From.UnixMilli(), ow.To.UnixMilli(), signoz.BuilderQuery{Name: "A", Signal: signoz.SignalLogs,
			StepInterval: 60, Filter: signoz.Filter{Expression: and(svc, loggedTrace)}, Aggregations: []signoz.Aggregation{{Expression: "count_distinct(trace_id)"}}, Limit: 1})},
		spans(qCoverBaseSpans, baseFrom, onset.Add(-CoverageSlack)),
		logs(qCoverBaseLogs, baseFrom.Add(-CoverageSlack), onset),
		spans(qCoverSpans, onset.Add(CoverageSlack), sinceTo),
		logs(qCoverLogs, onset, sinceTo.Add(CoverageSlack)),
	}, consistentQueries(c, st)...)
}

// entrySample is a raw sample of c's service's kept entry spans over
// [from, to), the latest limit of them with fields: the coverage samples'
// and the consistent arrivals' (consistentQueries).
func entrySample(c Call, name string, from, to time.Time, limit int, fields []signoz.FieldKey) Query {
	return Query{Name: name, Optional: true, Request: signoz.NewRequest(signoz.RequestRaw, from.UnixMilli(), to.UnixMilli(), signoz.BuilderQuery{Name: "A", Signal: signoz.SignalTraces,
		Filter: signoz.Filter{Expression: and(serviceFilter(c.Service), entrySpans, notMarker)}, Limit: limit, Order: desc("timestamp"), SelectFields: fields})}
}

// loggedAsked is how many of st.logged are the logs' own: those before the
// first of consistentQueries.
func loggedAsked(st overviewState) int {
	if i := slices.IndexFunc(st.logged, func(q Query) bool { return q.Name == qConsistentBase }); i >= 0 {
		return i
	}
	return len(st.logged)
}

// coverageWindow is how long a coverage sample's window is: long enough
// for twice facts.MinCoverageSample kept entry spans at the baseline's
// kept rate (a tail sampler keeps few before the onset), within
// MinCoverageWindow and MaxCoverageWindow.
func coverageWindow(st overviewState) time.Duration {
	var kept float64
	for _, m := range st.inbound {
		if !m.At.Before(st.onset.BaselineFrom) && m.At.Before(*st.onset.At) {
			kept += m.Requests
		}
	}
	perMin := kept / math.Max(1, st.onset.At.Sub(st.onset.BaselineFrom).Minutes())
	if perMin <= 0 {
		return MaxCoverageWindow
	}
	w := time.Duration(math.Ceil(2*facts.MinCoverageSample/perMin)) * time.Minute
	return min(max(w, MinCoverageWindow), MaxCoverageWindow)
}

// readLoggedArrivals reads the answers to st.logged (resps, in their order)
// into the service's logged arrivals; nil when any was refused or missing.
func readLoggedArrivals(st overviewState, resps []signoz.Response) (*contracts.LoggedArrivals, error) {
	if n := len(st.logged); n == 0 || len(resps) < n {
		return nil, nil
	}
	n := loggedAsked(st)
	for _, r := range resps[:n] {
		if r.Refused != "" {
			return nil, nil
		}
	}
	series, err := perMinute(resps[0], resps[0])
	if err != nil {
		return nil, err
	}
	in := facts.LoggedArrivalsInput{Logged: series, Inbound: st.inbound, Onset: st.onset}
	var baseCut, cut bool
	if in.BaselineSample, in.BaselineLogs, baseCut, err = coverageSample(resps, 1); err != nil {
		return nil, err
	}
	if in.Sample, in.Logs, cut, err = coverageSample(resps, 3); err != nil {
		return nil, err
	}
	in.Cut = baseCut || cut
	return facts.LoggedArrivals(in), nil
}

// coverageSample reads one coverage sample: the kept entry traces' ids
// (resps[i]), the trace ids the service's log records around them carry
// (resps[i+1]), and whether that log answer came back at its limit (cut).
func coverageSample(resps []signoz.Response, i int) (ids []string, logged map[string]bool, cut bool, err error) {
	spans, err := rawRows(resps, i)
	if err != nil {
		return nil, nil, false, err
	}
	logs, err := rawRows(resps, i+1)
	if err != nil {
		return nil, nil, false, err
	}
	logged = map[string]bool{}
	for _, id := range traceIDsOf(logs) {
		logged[id] = true
	}
	return traceIDsOf(spans), logged, len(logs) >= CoverageLogs, nil
}

// traceIDsOf are the distinct trace ids of rows, in their order.
func traceIDsOf(rows []signoz.RawRow) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range rows {
		if id := attrString(r.Data, "trace_id"); id != "" && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// loggedLine renders the service's logged arrivals for the model.
func loggedLine(l *contracts.LoggedArrivals) string {
	if l == nil {
		return ""
	}
	return fmt.Sprintf("requests logged with a trace id since the onset vs baseline: %sx (%d logged trace ids and %d kept entry spans since the onset; %d and %d in the baseline; %d of %d and %d of %d sampled kept traces logged): inbound traffic read from the logs, which the traces' sampler does not drop",
		fmtF(l.Ratio), l.Logged, l.Kept, l.BaselineLogged, l.BaselineKept, l.BaselineCovered, l.BaselineSampled, l.Covered, l.Sampled)
}
