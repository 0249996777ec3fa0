package tools

import (
	"fmt"
	"strings"
	"time"

	"agentk/contracts"
	"agentk/platform/links"
	"agentk/platform/mutant"
	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"
)

// Query is one request the sandbox sends to SigNoz for a call.
type Query struct {
	// Name says what the query is for (it appears in logs, never to the model).
	Name    string
	Request signoz.QueryRangeRequest
	// Optional: SigNoz refusing the query (signoz.ErrAPI, e.g. a field it
	// has never seen) leaves a response whose Refused says why, and the
	// call goes on without that measurement; SigNoz unavailable or
	// refusing the key still fails the call.
	Optional bool
}

// Plan is what answering a call takes: the queries, in order, and the deep link
// a human follows to see the same data in SigNoz.
type Plan struct {
	Queries []Query
	Link    string
	// Then, when set, plans the queries that depend on the answers so far
	// (every answer, in order); the executor calls it again after running
	// what it returned, until it returns none, at most MaxStages times.
	Then func(resps []signoz.Response) ([]Query, error)
}

// MaxStages bounds how many times an executor calls Plan.Then.
const MaxStages = 4

// Query names of service_overview, in plan order.
const (
	qOpsAll    = "ops"
	qOpsErrors = "ops_errors"
	qTotal     = "total"
	qTotalErr  = "total_errors"
	qMinutes   = "per_minute"
	qMinuteErr = "per_minute_errors"
	qRoots     = "per_minute_roots"
	qOthers    = "others_per_minute"
	qOthersErr = "others_per_minute_errors"
	qVersions  = "per_minute_versions"
	qVersionEr = "per_minute_version_errors"
	qPeers     = "per_minute_peers"
	qPeerErrs  = "per_minute_peer_errors"
	qPool      = "per_minute_pool"
	qPoolErrs  = "per_minute_pool_errors"
	qProcesses = "per_minute_processes"
	qPressure  = "per_minute_pressure_logs"
	qConfigChg = "per_minute_config_change_logs"
	qRegions   = "per_minute_regions"
	qNodes     = "per_minute_nodes"
	qHosts     = "per_minute_hosts"
	qHostsBare = "per_minute_hosts_unversioned"
	qAttempts  = "per_minute_entry_attempts"
	qBatches   = "per_minute_batch_messages"
	qSelfCalls = "self_call_sample"
	qRuntime   = "per_minute_runtime_attributes"
)

// fallbackQueryNames are the names of the two queries by each of
// contracts.FallbackVersionKeys (the entry spans, their errors by status).
var fallbackQueryNames = map[string][2]string{
	contracts.FaaSVersionKey: {"per_minute_faas_versions", "per_minute_faas_version_errors"},
	contracts.ImageTagKey:    {"per_minute_image_tags", "per_minute_image_tag_errors"},
}

// overviewQueries is how many queries service_overview's first stage sends
// (overviewFirstStage), counted from the stage itself so that a query added
// there cannot leave the builders splitting the answers in the wrong place.
var overviewQueries = len(overviewLayout)

// overviewLayout is where each of service_overview's first-stage answers
// lies, by the name its query was planned under. The readers ask for an
// answer by that name (firstAnswers.of), never by position, so that a query
// added anywhere in the stage moves no other's. The stage's queries, and so
// their names and order, do not depend on the call.
var overviewLayout = layoutOf(overviewFirstStage(Call{}, Limits{}))

// layoutOf is the position of each query of qs by its name; two queries of
// one stage under one name would leave one unreadable, so that panics.
func layoutOf(qs []Query) map[string]int {
	at := make(map[string]int, len(qs))
	for i, q := range qs {
		if _, dup := at[q.Name]; dup {
			panic("tools: two first-stage queries named " + q.Name)
		}
		at[q.Name] = i
	}
	return at
}

// overviewAt is the position of the first-stage answer to the query named
// name; a name the stage does not plan is a programming error, and panics.
func overviewAt(name string) int {
	i, ok := overviewLayout[name]
	if !ok {
		panic("tools: service_overview's first stage plans no query named " + name)
	}
	return i
}

// firstAnswers are service_overview's answers from the first stage's first
// on (later stages' may follow), read by query name.
type firstAnswers []signoz.Response

// of is the answer to the first-stage query named name.
func (a firstAnswers) of(name string) signoz.Response { return a[overviewAt(name)] }

// peerQueryNames are the names of the two queries by the peer key k (the
// outbound spans by peer, their errors).
func peerQueryNames(k string) (string, string) { return qPeers + "_" + k, qPeerErrs + "_" + k }

// OnsetHistory is how far before the alert's startsAt the per-minute series
// behind the onset reach: as much history as SigNoz keeps, up to a day. The
// baseline is whatever of it comes back (see FindOnset), not a fixed part.
const OnsetHistory = 24 * time.Hour

// OnsetWindow is the range of the per-minute series the onset is computed
// from: [startsAt − OnsetHistory, end of the incident window]. It does not
// depend on the caller.
func OnsetWindow(c Call) Window {
	return Window{From: c.StartsAt.Add(-OnsetHistory).UTC(), To: c.Incident.To}
}

func span(name, typ string) signoz.FieldKey {
	return signoz.FieldKey{Name: name, FieldDataType: typ, Signal: signoz.SignalTraces, FieldContext: "span"}
}
func resource(name string, signal string) signoz.FieldKey {
	return signoz.FieldKey{Name: name, FieldDataType: "string", Signal: signal, FieldContext: "resource"}
}
func tag(name, typ string) signoz.FieldKey {
	return signoz.FieldKey{Name: name, FieldDataType: typ, Signal: signoz.SignalTraces, FieldContext: "tag"}
}

// spanFields are the span columns and attributes error_traces and get_trace
// select: what an SRE reads first, not every attribute SigNoz knows.
var spanFields = []signoz.FieldKey{
	span("trace_id", "string"), span("span_id", "string"), span("parent_span_id", "string"),
	span("name", "string"), span("duration_nano", "number"), span("timestamp", "number"),
	span("has_error", "bool"), span("status_code", "number"), span("status_message", "string"),
	span("kind_string", "string"), resource("service.name", signoz.SignalTraces), resource("service.version", signoz.SignalTraces),
	tag("http.request.method", "string"), tag("http.route", "string"), tag("http.response.status_code", "number"),
	tag("url.path", "string"), tag("server.address", "string"), tag("rpc.method", "string"),
	tag("db.system", "string"), tag("db.operation", "string"), tag("exception.type", "string"), tag("exception.message", "string"),
	// The same features under the other semantic-convention version, and the
	// attributes a diagnosis reads: error class, peer, pool, retries, model.
	tag("http.status_code", "number"), tag("http.method", "string"), tag("net.peer.name", "string"), tag("peer.service", "string"),
	tag("error.type", "string"), tag("db.system.name", "string"), tag("db.operation.name", "string"),
	tag("db.client.connection.pool.name", "string"), tag("http.request.resend_count", "number"),
	tag("gen_ai.system", "string"), tag("gen_ai.provider.name", "string"),
	// Micrometer's HTTP client observation (Spring): its peer and answer
	// (PeerKeys, facts.FaultStatusKeys).
	tag(MicrometerPeerKey, "string"), tag(DataSourcePeerKey, "string"), tag(facts.MicrometerStatusKey, "string"), tag(facts.MicrometerOutcomeKey, "string"),
}

// SpanAttributes are the attributes spanRow shows, in order.
var SpanAttributes = []string{"http.request.method", "http.method", "http.route", "http.response.status_code", "http.status_code",
	"url.path", "server.address", "net.peer.name", "peer.service", "rpc.method", "db.system", "db.system.name", "db.operation", "db.operation.name",
	"db.client.connection.pool.name", "http.request.resend_count", "error.type", "exception.type", "exception.message", "gen_ai.system", "gen_ai.provider.name"}

var markerFields = []signoz.FieldKey{
	span("trace_id", "string"), span("span_id", "string"), span("name", "string"), span("timestamp", "number"),
	resource("service.name", signoz.SignalTraces), resource("service.version", signoz.SignalTraces),
	tag("deployment.version", "string"), tag("deployment.previous_version", "string"), tag("deployment.id", "string"),
	tag("deployment.type", "string"),
}

var logFields = []signoz.FieldKey{
	{Name: "timestamp", FieldDataType: "number", Signal: signoz.SignalLogs, FieldContext: "log"},
	{Name: "severity_text", FieldDataType: "string", Signal: signoz.SignalLogs, FieldContext: "log"},
	{Name: "body", FieldDataType: "string", Signal: signoz.SignalLogs, FieldContext: "log"},
	{Name: "trace_id", FieldDataType: "string", Signal: signoz.SignalLogs, FieldContext: "log"},
	{Name: "span_id", FieldDataType: "string", Signal: signoz.SignalLogs, FieldContext: "log"},
	resource("service.name", signoz.SignalLogs), resource("service.version", signoz.SignalLogs),
}

func desc(key string) []signoz.OrderBy {
	return []signoz.OrderBy{{Key: signoz.OrderKey{Name: key}, Direction: "desc"}}
}

// serviceFilter scopes a query to one service: the pipeline's own services are
// already refused by Validate, so this also keeps them out.
func serviceFilter(service string) string { return "service.name = " + Quote(service) }

// notMarker keeps deployment.marker spans out of a traffic series: a marker
// records a deploy, not a request, and its duration (how long the rollout
// took, often tens of seconds) would read as a latency regression that
// begins with the deploy, an onset placed before the very marker it follows.
const notMarker = "name != 'deployment.marker'"

// requestSpans are a service's requests, what its totals count: its entry
// spans (server, consumer) and its root spans (a job or a worker's loop
// that nobody called). Its calls out (client spans, retries included) and
// its internal spans are not requests: counted, a service making three
// calls per request showed four times its requests and an error rate
// diluted by its calls' successes. The per-minute series that place the
// onset still count every span: a retry storm shows in the calls out.
const requestSpans = "(" + entrySpans + " OR parent_span_id = '')"

// excludeFilter keeps the pipeline's own services out of a query that is not
// scoped to one service.
func excludeFilter(exclude []string) string {
	if len(exclude) == 0 {
		return ""
	}
	var q []string
	for _, e := range exclude {
		q = append(q, Quote(e))
	}
	return "service.name NOT IN (" + strings.Join(q, ", ") + ")"
}

// quotedIn is the filter "key IN (v1, v2, …)" with each value quoted.
func quotedIn(key string, values []string) string {
	var q []string
	for _, v := range values {
		q = append(q, Quote(v))
	}
	return key + " IN (" + strings.Join(q, ", ") + ")"
}

func and(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, " AND ")
}

// Severities at or above each level, as severity_text values.
// Emitters spell them differently (OpenTelemetry leaves severity_text free:
// "ERROR", "error", "Error"), so each level lists every spelling seen.
var severities = map[string][]string{
	"WARN":  spellings("WARN", "WARNING", "ERROR", "FATAL", "CRITICAL"),
	"ERROR": spellings("ERROR", "FATAL", "CRITICAL"),
	"FATAL": spellings("FATAL", "CRITICAL"),
}

func spellings(levels ...string) []string {
	var out []string
	for _, l := range levels {
		out = append(out, l, strings.ToLower(l), l[:1]+strings.ToLower(l[1:]))
	}
	return out
}

// AggregationExpr maps the aggregate_traces aggregation to SigNoz's expression.
func AggregationExpr(agg string) string {
	switch agg {
	case "count":
		return "count()"
	case "rate":
		return "rate()"
	}
	return agg + "(duration_nano)"
}

// releaseQueries are service_overview's series by service.version, by peer
// and of the connection pool: the entry spans by version, their errors by
// version and status message, the outbound spans (client and producer) and
// their errors by peer, the pool spans (count and p95) and their errors,
// the entry spans by version and process.pid, the logs that name a
// resource under pressure, the runtime attributes' per-minute means
// (RuntimeAttributes) and the operations' series (operationQueries).
func releaseQueries(c Call, ow Window) []Query {
	svc := serviceFilter(c.Service)
	from, to := ow.From.UnixMilli(), ow.To.UnixMilli()
	one := []signoz.Aggregation{{Expression: "count()"}}
	two := []signoz.Aggregation{{Expression: "count()"}, {Expression: "p95(duration_nano)"}}
	version := signoz.FieldKey{Name: "service.version", FieldContext: "resource", FieldDataType: "string"}
	byVersion := []signoz.FieldKey{version}
	bySignature := []signoz.FieldKey{version, {Name: "status_message", FieldContext: "span", FieldDataType: "string"}}
	series := func(name, filter string, aggs []signoz.Aggregation, by []signoz.FieldKey, limit int) Query {
		return Query{Name: name, Request: signoz.NewRequest(signoz.RequestTimeSeries, from, to, signoz.BuilderQuery{Name: "A", Signal: signoz.SignalTraces, StepInterval: 60,
			Filter: signoz.Filter{Expression: filter}, Aggregations: aggs, GroupBy: by, Limit: limit})}

	}
	qs := []Query{
		series(qVersions, and(svc, entrySpans), one, byVersion, 50),
		series(qVersionEr, and(svc, entrySpans, "has_error = true"), one, bySignature, 100),
	}
	// The same two by each fallback version key, in order, of the entry
	// spans that name no service.version (facts.FallbackVersionKey).
	var fallbacks []Query
	for _, k := range contracts.FallbackVersionKeys() {
		key := signoz.FieldKey{Name: k, FieldContext: "resource", FieldDataType: "string"}
		names := fallbackQueryNames[k]
		fallbacks = append(fallbacks, optional(series(names[0], and(svc, entrySpans, noVersion), one, []signoz.FieldKey{key}, 50)),
			optional(series(names[1], and(svc, entrySpans, noVersion, "has_error = true"), one, []signoz.FieldKey{key, bySignature[1]}, 100)))
	}
	for _, k := range PeerKeys {
		byPeer := []signoz.FieldKey{{Name: k, FieldContext: "attribute", FieldDataType: "string"}}
		calls, errs := peerQueryNames(k)
		qs = append(qs, series(calls, and(svc, outboundFor(k), peerFilter(k)), two, byPeer, 50),
			series(errs, and(svc, outboundFor(k), peerFilter(k), "has_error = true"), one, byPeer, 50))
	}
	pid := signoz.FieldKey{Name: "process.pid", FieldContext: "resource", FieldDataType: "string"}
	host := signoz.FieldKey{Name: facts.HostTrafficKey, FieldContext: "resource", FieldDataType: "string"}
	qs = append(qs, series(qPool, poolFilter(svc), two, nil, 1), series(qPoolErrs, and(poolFilter(svc), "has_error = true"), one, nil, 1),
		series(qProcesses, and(svc, entrySpans), one, []signoz.FieldKey{version, pid}, 100), pressureQuery(svc, ow), runtimeQuery(c.Service, ow), configChangeQuery(svc, ow),
		series(qRegions, and(svc, entrySpans), one, []signoz.FieldKey{{Name: facts.RegionTrafficKey, FieldContext: "resource", FieldDataType: "string"}}, 20),
		series(qNodes, and(svc, entrySpans), []signoz.Aggregation{{Expression: "count()"}, {Expression: "countIf(has_error = true)"}},
			[]signoz.FieldKey{{Name: facts.NodeTrafficKey, FieldContext: "resource", FieldDataType: "string"}, version}, 100),
		// The same by machine (facts.HostTraffic), with and without a
		// version: SigNoz keeps only the spans that carry every group-by key.
		optional(series(qHosts, and(svc, entrySpans, machineFilter()), []signoz.Aggregation{{Expression: "count()"}, {Expression: "countIf(has_error = true)"}},
			[]signoz.FieldKey{host, version}, 100)),
		optional(series(qHostsBare, and(svc, entrySpans, noVersion, machineFilter()), []signoz.Aggregation{{Expression: "count()"}, {Expression: "countIf(has_error = true)"}},
			[]signoz.FieldKey{host}, 50)),
		attemptsQuery(series(qAttempts, and(svc, "kind = 2", "parent_span_id != ''"), []signoz.Aggregation{{Expression: "count()"}, {Expression: "count_distinct(parent_span_id)"}}, nil, 1)))
	// A batch consumer's messages (facts.BatchMessages).
	batches := optional(series(qBatches, and(svc, entrySpans, facts.BatchSizeKey+" EXISTS"),
		[]signoz.Aggregation{{Expression: "count()"}, {Expression: "sum(" + facts.BatchSizeKey + ")"}}, nil, 1))
	qs = append(append(qs, fallbacks...), batches, selfCallQuery(c, svc))
	return append(qs, append(operationQueries(svc, from, to), retryLogQuery(svc, from, to), qualitySampleQuery(svc, from, to))...)
}

// overviewFirstStage is service_overview's first stage: the operations,
// the totals, the per-minute series, every other service's, then
// releaseQueries'. Its layout (overviewLayout) says where each answer lies.
func overviewFirstStage(c Call, lim Limits) []Query {
	from, to := c.Window.From.UnixMilli(), c.Window.To.UnixMilli()
	svc := serviceFilter(c.Service)
	ow := OnsetWindow(c)
	byName := []signoz.FieldKey{span("name", "string")}
	errs := and(svc, "has_error = true")
	traffic := and(svc, notMarker)
	requests := and(svc, notMarker, requestSpans)
	two := []signoz.Aggregation{{Expression: "count()"}, {Expression: "p95(duration_nano)"}}
	one := []signoz.Aggregation{{Expression: "count()"}}
	bySvc := []signoz.FieldKey{{Name: "service.name", FieldContext: "resource", FieldDataType: "string"}}
	others := and("service.name != "+Quote(c.Service), excludeFilter(lim.Exclude), notMarker)
	return append([]Query{
		{Name: qOpsAll, Request: signoz.NewRequest(signoz.RequestScalar, from, to, signoz.BuilderQuery{Name: "A", Signal: signoz.SignalTraces, Filter: signoz.Filter{Expression: svc}, Aggregations: two, GroupBy: byName, Limit: 100, Order: desc("count()")})},
		{Name: qOpsErrors, Request: signoz.NewRequest(signoz.RequestScalar, from, to, signoz.BuilderQuery{Name: "A", Signal: signoz.SignalTraces, Filter: signoz.Filter{Expression: errs}, Aggregations: one, GroupBy: byName, Limit: 100, Order: desc("count()")})},
		{Name: qTotal, Request: signoz.NewRequest(signoz.RequestScalar, from, to, signoz.BuilderQuery{Name: "A", Signal: signoz.SignalTraces, Filter: signoz.Filter{Expression: requests}, Aggregations: two, Limit: 1})},
		{Name: qTotalErr, Request: signoz.NewRequest(signoz.RequestScalar, from, to, signoz.BuilderQuery{Name: "A", Signal: signoz.SignalTraces, Filter: signoz.Filter{Expression: and(requests, "has_error = true")}, Aggregations: one, Limit: 1})},
		{Name: qMinutes, Request: signoz.NewRequest(signoz.RequestTimeSeries, ow.From.UnixMilli(), ow.To.UnixMilli(), signoz.BuilderQuery{Name: "A", Signal: signoz.SignalTraces, StepInterval: 60, Filter: signoz.Filter{Expression: traffic}, Aggregations: two, Limit: 100})},
		{Name: qMinuteErr, Request: signoz.NewRequest(signoz.RequestTimeSeries, ow.From.UnixMilli(), ow.To.UnixMilli(), signoz.BuilderQuery{Name: "A", Signal: signoz.SignalTraces, StepInterval: 60, Filter: signoz.Filter{Expression: errs}, Aggregations: one, Limit: 100})},
		// Alternative explanations: inbound traffic (root spans), and every
		// other service's per-minute series over the same window.
		{Name: qRoots, Request: signoz.NewRequest(signoz.RequestTimeSeries, ow.From.UnixMilli(), ow.To.UnixMilli(), signoz.BuilderQuery{Name: "A", Signal: signoz.SignalTraces, StepInterval: 60, Filter: signoz.Filter{Expression: and(svc, "parent_span_id = ''")}, Aggregations: one, Limit: 100})},
		{Name: qOthers, Request: signoz.NewRequest(signoz.RequestTimeSeries, ow.From.UnixMilli(), ow.To.UnixMilli(), signoz.BuilderQuery{Name: "A", Signal: signoz.SignalTraces, StepInterval: 60, Filter: signoz.Filter{Expression: others}, Aggregations: two, GroupBy: bySvc, Limit: 50})},
		{Name: qOthersErr, Request: signoz.NewRequest(signoz.RequestTimeSeries, ow.From.UnixMilli(), ow.To.UnixMilli(), signoz.BuilderQuery{Name: "A", Signal: signoz.SignalTraces, StepInterval: 60, Filter: signoz.Filter{Expression: and(others, "has_error = true")}, Aggregations: one, GroupBy: bySvc, Limit: 50})},
	}, releaseQueries(c, ow)...)
}

// PlanCall returns the queries answering c and its deep link under linkBase.
func PlanCall(c Call, linkBase string, lim Limits) Plan {
	from, to := c.Window.From.UnixMilli(), c.Window.To.UnixMilli()
	svc := serviceFilter(c.Service)
	ex := links.Explorer{From: c.Window.From, To: c.Window.To}
	switch c.Tool {
	case contracts.ToolServiceOverview:
		return Plan{Link: links.Service(linkBase, c.Service), Then: overviewThen(c, lim), Queries: overviewFirstStage(c, lim)}
	case contracts.ToolDeploymentMarkers:
		f := and(svc, "name = 'deployment.marker'")
		ex.Filter = f
		return Plan{Link: links.Traces(linkBase, ex), Queries: append([]Query{{Name: "markers", Request: signoz.NewRequest(signoz.RequestRaw, from, to,
			signoz.BuilderQuery{Name: "A", Signal: signoz.SignalTraces, Filter: signoz.Filter{Expression: f}, Limit: lim.MaxRows, Order: desc("timestamp"), SelectFields: markerFields})}},
			environmentQueries(svc, from, to, lim)...)}
	case contracts.ToolErrorTraces:
		f := and(svc, "has_error = true")
		ex.Filter = f
		return Plan{Link: links.Traces(linkBase, ex), Queries: []Query{{Name: "error_spans", Request: signoz.NewRequest(signoz.RequestRaw, from, to,
			signoz.BuilderQuery{Name: "A", Signal: signoz.SignalTraces, Filter: signoz.Filter{Expression: f}, Limit: c.Limit, Order: desc("timestamp"), SelectFields: spanFields})}}}
	case contracts.ToolGetTrace:
		f := and("trace_id = "+Quote(c.Args.TraceID), excludeFilter(lim.Exclude))
		return Plan{Link: links.Trace(linkBase, c.Args.TraceID), Queries: []Query{{Name: "trace", Request: signoz.NewRequest(signoz.RequestRaw, from, to,
			signoz.BuilderQuery{Name: "A", Signal: signoz.SignalTraces, Filter: signoz.Filter{Expression: f}, Limit: lim.MaxRows, Order: desc("timestamp"), SelectFields: spanFields})}}}
	case contracts.ToolErrorLogs:
		sev := c.Args.Severity
		if sev == "" {
			sev = "ERROR"
		}
		var q []string
		for _, s := range severities[sev] {
			q = append(q, Quote(s))
		}
		f := and(svc, "severity_text IN ("+strings.Join(q, ", ")+")")
		if c.Args.Search != "" {
			f = and(f, "body CONTAINS "+Quote(c.Args.Search))
		}
		ex.Filter = f
		order := []signoz.OrderBy{{Key: signoz.OrderKey{Name: "timestamp"}, Direction: "desc"}, {Key: signoz.OrderKey{Name: "id"}, Direction: "desc"}}
		return Plan{Link: links.Logs(linkBase, ex), Queries: []Query{{Name: "logs", Request: signoz.NewRequest(signoz.RequestRaw, from, to,
			signoz.BuilderQuery{Name: "A", Signal: signoz.SignalLogs, Filter: signoz.Filter{Expression: f}, Limit: c.Limit, Order: order, SelectFields: logFields})}}}
	case contracts.ToolAggregateTraces:
		f := and(svc, Render(c.Filter))
		agg := AggregationExpr(c.Args.Aggregation)
		var gb []signoz.FieldKey
		for _, g := range c.Args.GroupBy {
			gb = append(gb, signoz.FieldKey{Name: g})
		}
		ex.Filter, ex.Aggregation, ex.GroupBy = f, agg, c.Args.GroupBy
		return Plan{Link: links.Traces(linkBase, ex), Queries: []Query{{Name: "aggregate", Request: signoz.NewRequest(signoz.RequestScalar, from, to,
			signoz.BuilderQuery{Name: "A", Signal: signoz.SignalTraces, Filter: signoz.Filter{Expression: f}, Aggregations: []signoz.Aggregation{{Expression: agg}}, GroupBy: gb, Limit: c.Limit, Order: desc(agg)})}}}
	}
	panic(fmt.Sprintf("tools: PlanCall of unvalidated tool %q", c.Tool))
}

// machineFilter keeps the entry spans whose host.name names a machine
// (facts.MachineHostFilter): the pods, containers and functions whose
// host.name is their own are left out.
func machineFilter() string {
	if mutant.Off(mutant.SandboxNodeHostMachine) {
		return facts.HostTrafficKey + " EXISTS"
	}
	return "(" + facts.MachineHostFilter + ")"
}

// noVersion keeps the spans that name no service.version: a service's
// versions are read from a fallback key only where none does
// (facts.FallbackVersionKey).
const noVersion = "service.version NOT EXISTS"

// optional marks a query Optional: a SigNoz that refuses it (a key it never
// saw) leaves its measurement out.
func optional(q Query) Query {
	q.Optional = true
	return q
}

// SelfCallSpans bounds the sample of the service's own client and server
// spans that facts.SelfCallPeers reads.
const SelfCallSpans = 500

// selfCallQuery is the sample of the service's client and server spans,
// newest first, over the call's window (facts.SelfCallPeers: a peer whose
// calls each have the service's own server span beneath them is the service
// calling itself). Optional: refused, every peer stays a dependency.
func selfCallQuery(c Call, svc string) Query {
	fields := []signoz.FieldKey{span("trace_id", "string"), span("span_id", "string"), span("parent_span_id", "string"), span("timestamp", "number"),
		span("kind_string", "string"), tag("server.address", "string"), tag("net.peer.name", "string")}
	return optional(Query{Name: qSelfCalls, Request: signoz.NewRequest(signoz.RequestRaw, c.Window.From.UnixMilli(), c.Window.To.UnixMilli(), signoz.BuilderQuery{Name: "A", Signal: signoz.SignalTraces,
		Filter: signoz.Filter{Expression: and(svc, notMarker, "kind IN (2, 3)")}, Limit: SelfCallSpans, Order: desc("timestamp"), SelectFields: fields})})
}

// SelfCallKeys are the peer keys a self call names its address by.
var SelfCallKeys = []string{"server.address", "net.peer.name"}

// attemptsQuery is the server spans with a parent per minute and their
// distinct parent spans (facts.RepeatedAttempts: several server spans
// beneath one parent are attempts of one call). Consumer spans are left
// out: a batch consumer's process spans share the poll's receive span, and
// collapsed they would hide a surge of messages (a redelivery is read from
// the publishes instead, facts.PublishedArrivals). Optional: a SigNoz that
// refuses the aggregation leaves every entry span a request, as before.
func attemptsQuery(q Query) Query {
	q.Optional = true
	return q
}
