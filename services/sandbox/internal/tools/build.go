package tools

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"agentk/contracts"
	"agentk/services/sandbox/internal/compact"
	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"
)

// Output is what one call produced: the text a model reads and the facts the
// gate may use without reading text.
type Output struct {
	Compact string
	Facts   contracts.Facts
}

// Build turns the responses to PlanCall's queries (same order) into the
// compact text and facts. Rows of other services, and of the pipeline's own,
// are dropped whatever SigNoz returned.
func Build(c Call, resps []signoz.Response, lim Limits, cl compact.Limits) (Output, error) {
	var (
		out Output
		err error
	)
	switch c.Tool {
	case contracts.ToolServiceOverview:
		out, err = buildOverview(c, resps, lim, cl)
	case contracts.ToolDeploymentMarkers:
		out, err = buildMarkers(c, resps, lim, cl)
	case contracts.ToolErrorTraces, contracts.ToolGetTrace:
		out, err = buildSpans(c, resps, lim, cl)
	case contracts.ToolErrorLogs:
		out, err = buildLogs(c, resps, lim, cl)
	case contracts.ToolAggregateTraces:
		out, err = buildAggregate(c, resps, cl)
	default:
		return Output{}, fmt.Errorf("%w %q", ErrUnknownTool, c.Tool)
	}
	if err != nil {
		return Output{}, err
	}
	out.Facts.Numbers = compact.Numbers(out.Compact)
	return out, nil
}

func header(c Call, lines ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "tool: %s\n", c.Tool)
	if c.Service != "" {
		fmt.Fprintf(&b, "service: %s\n", c.Service)
	}
	fmt.Fprintf(&b, "window: %s .. %s\n", c.Window.From.Format(time.RFC3339), c.Window.To.Format(time.RFC3339))
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

func one[T any](resps []signoz.Response, i int, decode func(signoz.Response) ([]T, error)) ([]T, error) {
	if i >= len(resps) {
		return nil, fmt.Errorf("%w: missing response %d", ErrBadResponse, i)
	}
	v, err := decode(resps[i])
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadResponse, err)
	}
	return v, nil
}

func rawRows(resps []signoz.Response, i int) ([]signoz.RawRow, error) {
	res, err := one(resps, i, signoz.Response.Raw)
	if err != nil {
		return nil, err
	}
	var rows []signoz.RawRow
	for _, r := range res {
		for _, row := range r.Rows {
			if row.Data != nil {
				rows = append(rows, row)
			}
		}
	}
	return rows, nil
}

// keep reports whether a row may be shown: never the pipeline's own services,
// and for a service-scoped call only that service.
func keep(c Call, lim Limits, d map[string]any) bool {
	svc := resourceValue(d, "service.name")
	if Excluded(svc, lim.Exclude) {
		return false
	}
	return c.Service == "" || svc == c.Service
}

func buildMarkers(c Call, resps []signoz.Response, lim Limits, cl compact.Limits) (Output, error) {
	rows, err := rawRows(resps, 0)
	if err != nil {
		return Output{}, err
	}
	out := Output{Facts: contracts.Facts{MarkerQuery: true}}
	var shown []any
	for _, r := range rows {
		d := r.Data
		// A marker is a span named exactly deployment.marker whose resource
		// service.name is the queried service; anything else that mentions
		// one (a log body, an attribute of another span) is not.
		if attrString(d, "name") != "deployment.marker" || resourceValue(d, "service.name") != c.Service {
			continue
		}
		m := contracts.DeploymentMarker{
			Service: c.Service, Version: attrString(d, "deployment.version"),
			PreviousVersion: attrString(d, "deployment.previous_version"), DeploymentID: attrString(d, "deployment.id"),
			At: rowTime(r), TraceID: attrString(d, "trace_id"), SpanID: attrString(d, "span_id"), Type: attrString(d, "deployment.type"),
		}
		if m.Version == "" || m.At.IsZero() || m.At.Before(c.Window.From) || m.At.After(c.Window.To) {
			continue
		}
		out.Facts.DeploymentMarkers = append(out.Facts.DeploymentMarkers, m)
	}
	slices.SortFunc(out.Facts.DeploymentMarkers, func(a, b contracts.DeploymentMarker) int { return a.At.Compare(b.At) })
	byMarker, envs := markerEnvironments(c.Service, resps, 1)
	withEnvironments(out.Facts.DeploymentMarkers, byMarker)
	out.Facts.ServiceEnvironments = envs
	for _, m := range out.Facts.DeploymentMarkers {
		row := map[string]any{"at": m.At.Format(time.RFC3339Nano), "version": m.Version,
			"previous_version": m.PreviousVersion, "deployment_id": m.DeploymentID, "trace_id": m.TraceID}
		if m.Environment != "" {
			row["environment"] = m.Environment
		}
		if m.Type != "" {
			row["type"] = m.Type
		}
		shown = append(shown, row)
	}
	lines := []string{fmt.Sprintf("deployment markers found: %d (only deployment.marker spans of this service count)", len(out.Facts.DeploymentMarkers))}
	if len(envs) > 0 {
		lines = append(lines, "environments of the service's latest spans: "+strings.Join(envs, ", "))
	}
	out.Compact = header(c, lines...) + compact.Block(shown, cl)
	return out, nil
}

func spanRow(r signoz.RawRow) map[string]any {
	d := r.Data
	row := map[string]any{
		"time": rowTime(r).Format(time.RFC3339Nano), "trace_id": attrValue(d, "trace_id"), "span_id": attrValue(d, "span_id"),
		"parent_span_id": attrValue(d, "parent_span_id"), "service": resourceValue(d, "service.name"),
		"version": resourceValue(d, "service.version"), "operation": attrValue(d, "name"),
		"status_code": attrValue(d, "status_code"), "status_message": attrValue(d, "status_message"),
		"kind": attrValue(d, "kind_string"),
	}
	if v, ok := num(attrValue(d, "duration_nano")); ok {
		row["duration_ms"] = ms(v)
	}
	if v, ok := attrValue(d, "has_error").(bool); ok && v {
		row["error"] = true
	}
	for _, k := range SpanAttributes {
		row[k] = attrValue(d, k)
	}
	return row
}

func buildSpans(c Call, resps []signoz.Response, lim Limits, cl compact.Limits) (Output, error) {
	rows, err := rawRows(resps, 0)
	if err != nil {
		return Output{}, err
	}
	var shown []any
	dropped := 0
	for _, r := range rows {
		if !keep(c, lim, r.Data) {
			dropped++
			continue
		}
		shown = append(shown, spanRow(r))
	}
	if c.Tool == contracts.ToolGetTrace {
		sort.SliceStable(shown, func(i, j int) bool {
			return shown[i].(map[string]any)["time"].(string) < shown[j].(map[string]any)["time"].(string)
		})
	}
	lines := []string{fmt.Sprintf("spans: %d", len(shown))}
	if c.Tool == contracts.ToolGetTrace {
		lines = append([]string{"trace_id: " + c.Args.TraceID}, lines...)
	}
	if dropped > 0 {
		lines = append(lines, fmt.Sprintf("spans withheld (other or excluded services): %d", dropped))
	}
	return Output{Compact: header(c, lines...) + compact.Block(shown, cl)}, nil
}

func buildLogs(c Call, resps []signoz.Response, lim Limits, cl compact.Limits) (Output, error) {
	rows, err := rawRows(resps, 0)
	if err != nil {
		return Output{}, err
	}
	// Records that repeat one message (same body, severity and version) are
	// shown once, the first as SigNoz ordered them, with how many there were
	// and when the earliest was: twelve copies of one timeout would otherwise
	// fill the model's share of the evidence and hide the one record that
	// says something else.
	type key struct{ body, severity, version string }
	var shown []any
	groups := map[key]map[string]any{}
	records := 0
	for _, r := range rows {
		d := r.Data
		if !keep(c, lim, d) {
			continue
		}
		records++
		at := rowTime(r).Format(time.RFC3339Nano)
		k := key{fmt.Sprint(attrValue(d, "body")), fmt.Sprint(attrValue(d, "severity_text")), fmt.Sprint(resourceValue(d, "service.version"))}
		if g, ok := groups[k]; ok {
			n, _ := g["count"].(int)
			g["count"] = max(n, 1) + 1
			if first, _ := g["first_time"].(string); first == "" || at < first {
				g["first_time"] = at
			}
			continue
		}
		row := map[string]any{
			"time": at, "severity": attrValue(d, "severity_text"),
			"body": attrValue(d, "body"), "trace_id": attrValue(d, "trace_id"), "span_id": attrValue(d, "span_id"),
			"version": resourceValue(d, "service.version"),
		}
		groups[k] = row
		shown = append(shown, row)
	}
	for _, r := range shown {
		if g := r.(map[string]any); g["first_time"] == g["time"] {
			delete(g, "first_time")
		}
	}
	lines := []string{fmt.Sprintf("log records: %d (%d distinct messages)", records, len(shown))}
	if c.Args.Search != "" {
		lines = append(lines, "search: "+compact.Quote(c.Args.Search))
	}
	return Output{Compact: header(c, lines...) + compact.Block(shown, cl)}, nil
}

// table reads a scalar result as rows of group values and aggregation values.
type tableRow struct {
	groups map[string]any
	aggs   map[int]float64
}

func table(res signoz.ScalarResult) []tableRow {
	var out []tableRow
	for _, d := range res.Data {
		r := tableRow{groups: map[string]any{}, aggs: map[int]float64{}}
		aggN := 0
		for i, col := range res.Columns {
			if i >= len(d) {
				break
			}
			if col.ColumnType == "group" {
				r.groups[col.Name] = d[i]
				continue
			}
			idx := col.AggregationIndex
			if col.ColumnType == "" {
				idx = aggN
			}
			aggN++
			if f, ok := num(d[i]); ok {
				r.aggs[idx] = f
			} else {
				r.aggs[idx] = math.NaN()
			}
		}
		out = append(out, r)
	}
	return out
}

func scalarRows(resps []signoz.Response, i int) ([]tableRow, error) {
	res, err := one(resps, i, signoz.Response.Scalar)
	if err != nil {
		return nil, err
	}
	var out []tableRow
	for _, r := range res {
		out = append(out, table(r)...)
	}
	return out, nil
}

func buildAggregate(c Call, resps []signoz.Response, cl compact.Limits) (Output, error) {
	rows, err := scalarRows(resps, 0)
	if err != nil {
		return Output{}, err
	}
	duration := c.Args.Aggregation != "count" && c.Args.Aggregation != "rate"
	var shown []any
	for _, r := range rows {
		row := map[string]any{}
		for k, v := range r.groups {
			if k == "service.name" {
				continue
			}
			row[k] = v
		}
		v, ok := r.aggs[0]
		switch {
		case !ok || math.IsNaN(v):
		case duration:
			row[c.Args.Aggregation+"_ms"] = ms(v)
		default:
			row[c.Args.Aggregation] = round(v)
		}
		shown = append(shown, row)
	}
	lines := []string{"aggregation: " + AggregationExpr(c.Args.Aggregation)}
	if len(c.Filter) > 0 {
		lines = append(lines, "filter: "+compact.Quote(Render(c.Filter)))
	}
	if len(c.Args.GroupBy) > 0 {
		lines = append(lines, "group_by: "+strings.Join(c.Args.GroupBy, ", "))
	}
	return Output{Compact: header(c, lines...) + compact.Block(shown, cl)}, nil
}

func fmtF(f float64) string { return strconv.FormatFloat(round(f), 'f', -1, 64) }

func buildOverview(c Call, resps []signoz.Response, lim Limits, cl compact.Limits) (Output, error) {
	if len(resps) < overviewQueries {
		return Output{}, fmt.Errorf("%w: service_overview needs at least %d responses, got %d", ErrBadResponse, overviewQueries, len(resps))
	}
	f, err := overviewTotals(resps)
	if err != nil {
		return Output{}, err
	}
	shown, err := overviewOps(resps)
	if err != nil {
		return Output{}, err
	}
	// The onset, from the per-minute series over the sandbox's own window,
	// and the alternatives, less the services that only propagated.
	keys, retry := sampleKeys(firstAnswers(resps).of(qQualitySample))
	two := min(len(resps), overviewQueries+stageTwoCount(keys, retry))
	st, err := sharedOverviewBase(c, resps[:overviewQueries], resps[overviewQueries:two])
	if err != nil {
		return Output{}, err
	}
	lag, arr, asked, err := overviewConsumer(c, lim, resps, two, &st)
	if err != nil {
		return Output{}, err
	}
	f.ConsumerLag = lag
	base := two + asked
	on := st.onset
	var propLine string
	if on.At == nil {
		f.OnsetUnknown = on.Reason
	} else {
		// The follow-up stages: the onset's own spans, then the traces
		// that tell propagation from a shared cause.
		follow := resps[base:]
		if len(follow) > 0 {
			rows, err := rawRows(follow, 0)
			if err != nil {
				return Output{}, err
			}
			on, follow = refineOnset(on, rows, st), follow[1:]
		}
		fu, err := overviewFollow(c, lim, st, follow)
		if err != nil {
			return Output{}, err
		}
		j, err := judgePropagation(c, lim, st, fu.prop, fu.origin, fu.fell, fu.refusals)
		if err != nil {
			return Output{}, err
		}
		cPeers, cSvcs := confinedCallees(c, st, fu, &j)
		// A callee that failed under the load of this service's own calls
		// (propagated: a retry storm) is where the failing spans begin but
		// not what broke: it is no origin.
		if fu.origin != nil && slices.Contains(j.Propagated, fu.origin.Service) {
			fu.origin = nil
		}
		f.TrafficRatio, f.CoRegressed, f.Propagated, f.Downstream, f.Origin = st.alt.TrafficRatio, j.Shared, j.Propagated, j.Downstream, fu.origin
		f.Release, f.FailingDependencies, f.SlowDependencies = st.release, withoutPeers(facts.WithoutDownstream(facts.AppendNew(slices.Clone(st.failingDeps), fu.failingDeps...), slices.Concat(j.Abandoned, j.Refused, fu.impatient)), append(fu.newCalls, cPeers...)), slowPeers(st, fu, j.Abandoned)
		f.DependencyFaults, f.TimedOutDependencies, f.SilentDependencies = facts.WithinPeers(fu.faults, f.FailingDependencies), facts.WithinPeers(fu.timedOut, f.FailingDependencies), facts.WithinPeers(fu.silent, f.FailingDependencies)
		f.AuthRefusedDependencies, f.RetriedFaults = facts.WithinPeers(fu.authRefused, f.FailingDependencies), facts.RetriedFaults(st.peers, st.inbound, st.onset, st.retriedDeps, fu.retriedFaults)
		f.CallsSinceRelease, f.CoRegressed = callsSinceRelease(st, f.AuthRefusedDependencies), facts.WithOrigin(f.CoRegressed, facts.UnlessRefused(fu.origin, append(j.Refused, cSvcs...)))
		f.CallsBeforeSlowing, f.SentChanges, f.PeakCallRatio, f.PeakCallPeer, f.Retries, f.PublishedArrivals, f.LoggedArrivals, f.ConsistentArrivals = callsBeforeSlowing(st, f.SlowDependencies, on.At), readSentChanges(c, st, fu.sent, f.SlowDependencies, on.At), st.peakCall, st.peakPeer, st.retries, arr, fu.logged, fu.consistent
		f.ConnectionPool, f.Restarts, f.ResourcePressure, f.RuntimeSaturation, f.ConfigChanges, f.RegionTraffic, f.NodeTraffic = st.pool, st.restarts, st.pressure, st.runtime, st.configChanges, st.regions, st.nodes
		propLine = judgedLines(c.Service, j, fu, st)
		for _, l := range []string{originLine(c.Service, fu.origin, fu.counts), slowLine(st.slowDeps, f.SlowDependencies), newCallLine(c.Service, st.release, fu.newCalls, fu.newCallsCut), confinedLine(c.Service, st.release, cPeers), sentLine(c.Service, st.release, f.SentChanges)} {
			propLine = joinLine(propLine, l)
		}
	}
	f.Onset = on.At
	f.OnsetOperation, f.OnsetStatus, f.Departures, f.QualityShifts = on.Operation, on.Status, facts.DepartureFacts(st.departures), facts.QualityFacts(st.quality)
	if on.Quality && len(st.quality) > 0 {
		f.OnsetAttribute = st.quality[0].Fact().Attribute
	}
	lines := append(append(overviewLines(f, on, propLine), ruleLines(&f, c, st.minutes, on)...), lastLines(f, st.runtimeRefused)...)
	text := header(c, append(lines, "per operation:")...) + compact.Block(shown, cl)
	if on.At != nil {
		text += "\nminutes around the onset:\n" + compact.Block(around(st.minutes, *on.At), compact.Limits{MaxRows: 15, MaxChars: 2000})
	}
	return Output{Compact: text, Facts: f}, nil
}

// lastLines are the overview's lines after the rule's: the consumer lag,
// and the runtime attributes' refusal (runtimeRefused, SigNoz's words).
func lastLines(f contracts.Facts, runtimeRefused string) []string {
	var lines []string
	if l := lagLine(f.ConsumerLag); l != "" {
		lines = append(lines, l)
	}
	if runtimeRefused != "" {
		lines = append(lines, "runtime attributes not measured: SigNoz refused the query ("+compact.Quote(runtimeRefused)+")")
	}
	return lines
}

// overviewTotals reads the request and error totals and the p95.
func overviewTotals(resps []signoz.Response) (contracts.Facts, error) {
	var f contracts.Facts
	total, err := scalarRows(resps, overviewAt(qTotal))
	if err != nil {
		return f, err
	}
	totalErr, err := scalarRows(resps, overviewAt(qTotalErr))
	if err != nil {
		return f, err
	}
	var reqs, errs int64
	if len(total) > 0 {
		if v, ok := total[0].aggs[0]; ok && !math.IsNaN(v) {
			reqs = int64(math.Round(v))
		}
		if v, ok := total[0].aggs[1]; ok && !math.IsNaN(v) {
			p := ms(v)
			f.P95Ms = &p
		}
	}
	if len(totalErr) > 0 {
		if v, ok := totalErr[0].aggs[0]; ok && !math.IsNaN(v) {
			errs = int64(math.Round(v))
		}
	}
	f.RequestCount, f.ErrorCount = &reqs, &errs
	if reqs > 0 {
		r := round(float64(errs) / float64(reqs))
		f.ErrorRate = &r
	}
	return f, nil
}

// overviewOps is the per-operation table: requests, errors, error rate, p95.
func overviewOps(resps []signoz.Response) ([]any, error) {
	ops, err := scalarRows(resps, overviewAt(qOpsAll))
	if err != nil {
		return nil, err
	}
	opErrs, err := scalarRows(resps, overviewAt(qOpsErrors))
	if err != nil {
		return nil, err
	}
	errByOp := map[string]float64{}
	for _, r := range opErrs {
		errByOp[fmt.Sprint(r.groups["name"])] = r.aggs[0]
	}
	var shown []any
	for _, r := range ops {
		name := fmt.Sprint(r.groups["name"])
		row := map[string]any{"operation": r.groups["name"]}
		if n := r.aggs[0]; !math.IsNaN(n) {
			row["requests"] = n
			e := errByOp[name]
			row["errors"] = e
			if n > 0 {
				row["error_rate"] = round(e / n)
			}
		}
		if p, ok := r.aggs[1]; ok && !math.IsNaN(p) {
			row["p95_ms"] = ms(p)
		}
		shown = append(shown, row)
	}
	return shown, nil
}

// overviewLines are the overview's summary lines, from its facts, onset and
// propagation line.
func overviewLines(f contracts.Facts, on Onset, propLine string) []string {
	lines := []string{fmt.Sprintf("requests: %d  errors: %d", *f.RequestCount, *f.ErrorCount)}
	if f.ErrorRate != nil {
		lines = append(lines, "error_rate: "+fmtF(*f.ErrorRate))
	}
	if f.P95Ms != nil {
		lines = append(lines, "p95_ms: "+fmtF(*f.P95Ms))
	}
	if on.BaselineMinutes > 0 {
		lines = append(lines, fmt.Sprintf("baseline (from %s, %d min with traffic, %s sampled requests, %d-minute buckets): error_rate %s, p95_ms %s",
			on.BaselineFrom.Format(time.RFC3339), on.BaselineMinutes, fmtF(on.BaselineRequests), on.BucketMinutes, fmtF(on.BaselineErrorRate), fmtF(on.BaselineP95Ms)))
	}
	lines = append(lines, onsetLines(on)...)
	if len(f.Departures) > 0 {
		lines = append(lines, departuresLine(f.Departures))
	}
	if len(f.QualityShifts) > 0 {
		lines = append(lines, qualityLine(f.QualityShifts))
	}
	lines = append(lines, trafficLines(f)...)
	if len(f.CoRegressed) > 0 {
		lines = append(lines, "other services that regressed at the same time: "+strings.Join(f.CoRegressed, ", "))
	}
	if propLine != "" {
		lines = append(lines, propLine)
	}
	if on.At != nil {
		lines = append(lines, releaseLine(f.Release))
	}
	if f.PeakCallRatio != nil {
		lines = append(lines, "calls to "+compact.Quote(f.PeakCallPeer)+" since the onset vs baseline: "+fmtF(*f.PeakCallRatio)+"x (the peer whose calls rose most)")
	}
	if r := f.Retries; r != nil {
		lines = append(lines, retryLine(r))
	}
	if p := f.ConnectionPool; p != nil {
		lines = append(lines, poolLine(p))
	}
	for _, r := range f.Restarts {
		lines = append(lines, restartLine(r))
	}
	if p := f.ResourcePressure; p != nil {
		lines = append(lines, pressureLine(p))
	}
	if l := f.RuntimeSaturation; l != nil {
		lines = append(lines, runtimeLine(l))
	}
	lines = append(lines, movedLines(f)...)
	if len(f.FailingDependencies) > 0 {
		var peers []string
		for _, p := range f.FailingDependencies {
			peers = append(peers, compact.Quote(p))
		}
		lines = append(lines, "dependencies failing at their usual call rate since the onset (client spans): "+strings.Join(peers, ", "))
	}
	if len(f.DependencyFaults) > 0 {
		var peers []string
		for _, p := range f.DependencyFaults {
			peers = append(peers, compact.Quote(p))
		}
		lines = append(lines, "of those, answering most failed calls with their own failure status (HTTP 5xx or 429, gRPC UNAVAILABLE, RESOURCE_EXHAUSTED, INTERNAL): "+strings.Join(peers, ", "))
	}
	return append(lines, retriedLines(f.RetriedFaults)...)
}

// retriedLines say each retried fault's rise of calls and failure rates.
func retriedLines(rf []contracts.RetriedFault) []string {
	var lines []string
	for _, r := range rf {
		lines = append(lines, fmt.Sprintf("dependency %s failing since the onset with its own failure status, its calls risen: %sx per inbound request, %s%% of calls failed (%s%% in the baseline)",
			compact.Quote(r.Peer), fmtF(r.CallRatio), fmtF(100*r.FailureRate), fmtF(100*r.BaselineFailureRate)))
	}
	return lines
}

// around lists the minutes from 5 before to 9 after t.
func around(minutes []Minute, t time.Time) []any {
	var out []any
	for _, m := range minutes {
		if m.At.Before(t.Add(-5*time.Minute)) || m.At.After(t.Add(9*time.Minute)) {
			continue
		}
		row := map[string]any{"minute": m.At.Format("15:04"), "requests": m.Requests, "errors": m.Errors}
		if !math.IsNaN(m.P95Ms) {
			row["p95_ms"] = round(m.P95Ms)
		}
		out = append(out, row)
	}
	return out
}

// perMinute merges the per-minute count/p95 and error count series, sorted.
func perMinute(all, errs signoz.Response) ([]Minute, error) {
	by, err := perMinuteGrouped(all, errs, func(signoz.Series) string { return "all" })
	if err != nil {
		return nil, err
	}
	out := by["all"]
	slices.SortFunc(out, func(x, y Minute) int { return x.At.Compare(y.At) })
	return out, nil
}

// onsetLines say where the onset is and how it was found, or why none was.
func onsetLines(on Onset) []string {
	var lines []string
	switch {
	case on.At == nil:
		return []string{"onset: none found (" + on.Reason + ")"}
	case on.Rule != "":
		lines = []string{fmt.Sprintf("onset: %s (the alert's own rule: %s)", on.At.Format(time.RFC3339), on.Reason)}
	case on.Quality:
		lines = []string{fmt.Sprintf("onset: %s (%s of an attribute of the service's own spans, no error or latency departure earlier: %s)", on.At.Format(time.RFC3339), on.Signal, on.Reason)}
	case on.Signal == "retries":
		lines = []string{fmt.Sprintf("onset: %s (retries per inbound request, no error or latency departure earlier: %s)", on.At.Format(time.RFC3339), on.Reason)}
	case on.Pooled:
		lines = []string{fmt.Sprintf("onset: %s (%s; pooled: %s)", on.At.Format(time.RFC3339), on.Signal, on.Reason)}
	default:
		lines = []string{fmt.Sprintf("onset: %s (%s; thresholds error_rate >= %s or p95_ms >= %s for %d buckets)", on.At.Format(time.RFC3339), on.Signal, fmtF(on.ErrorThreshold), fmtF(on.P95ThresholdMs), DefaultMargins.Sustain)}
	}
	if on.Operation != "" {
		lines = append(lines, "onset placed by one operation's own series, "+compact.Quote(on.Operation)+" (the service aggregate placed none earlier)")
	}
	if on.Dependency != "" {
		lines = append(lines, "onset placed by the calls to "+compact.Quote(on.Dependency)+", a dependency that slowed at its usual call rate: they left their own baseline (p95 >= "+
			fmtF(on.DependencyP95Ms)+" ms) before every other signal of the service")
	}
	if on.Signatures != "" {
		lines = append(lines, "onset "+on.Signatures)
	}
	if on.Refined != "" {
		lines = append(lines, "onset "+on.Refined)
	}
	return lines
}

// judgedLines say which co-regressed services only propagated, and which are
// downstream (abandoned, only called less, or refusing its requests: st
// holds those callees' own series and the service's calls to them).
func judgedLines(svc string, j facts.Judged, fu followUps, st overviewState) string {
	var text string
	if len(j.Propagated) > 0 {
		text = "other services that " + propagationLine(svc, j.Propagated, j.Seen)
	}
	if len(j.Abandoned) > 0 {
		text = joinLine(text, downstreamLine(svc, j.Abandoned, j.Seen))
	}
	if len(j.Fewer) > 0 {
		text = joinLine(text, fewerLine(svc, j.Fewer, fu.fell))
	}
	if len(j.Refused) > 0 {
		text = joinLine(text, refusedLine(svc, j.Refused, st, fu.refusals))
	}
	return text
}

// movedLines say what else moved at the onset: a configuration changed at
// runtime, requests that moved between regions, errors by node.
func movedLines(f contracts.Facts) []string {
	var lines []string
	if len(f.ConfigChanges) > 0 {
		lines = append(lines, configChangeLine(f.ConfigChanges))
	}
	if len(f.RegionTraffic) > 0 {
		lines = append(lines, regionLine(f.RegionTraffic))
	}
	if len(f.NodeTraffic) > 0 {
		lines = append(lines, nodeLine(f.NodeTraffic))
	}
	return lines
}

// slowPeers are the slow dependencies of st and those slow at their usual
// rate within the consistent share (fu.consistent's peers), less those
// named as a downstream effect.
func slowPeers(st overviewState, fu followUps, downstream []string) []string {
	slow := facts.SlowPeers(st.slowDeps, downstream)
	if fu.consistent == nil {
		return slow
	}
	return facts.AppendNew(slow, facts.WithoutDownstream(facts.ConsistentSlowPeers(fu.consistent.Peers), downstream)...)
}
