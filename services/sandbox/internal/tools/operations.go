package tools

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"agentk/contracts"
	"agentk/services/sandbox/internal/compact"
	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"
)

// The queries of the operations' series and their reading; the departures
// they show are computed in package facts (facts/departures.go).

// Operation keys: span name and kind, the HTTP route and the RPC method.
var operationKeys = [][]string{{"name", "kind_string"}, {"http.route"}, {"rpc.method"}}

// operationQueries are the per-minute series of the service's operations:
// count and p95, and errors, for each grouping of operationKeys.
func operationQueries(svc string, from, to int64) []Query {
	two := []signoz.Aggregation{{Expression: "count()"}, {Expression: "p95(duration_nano)"}}
	one := []signoz.Aggregation{{Expression: "count()"}}
	var qs []Query
	for _, keys := range operationKeys {
		var by []signoz.FieldKey
		for _, k := range keys {
			if k == "name" || k == "kind_string" {
				by = append(by, span(k, "string"))
			} else {
				by = append(by, signoz.FieldKey{Name: k, FieldContext: "attribute", FieldDataType: "string"})
			}
		}
		name, errName := opQueryNames(keys)
		series := func(n, f string, aggs []signoz.Aggregation) Query {
			return Query{Name: n, Optional: len(keys) == 1, Request: signoz.NewRequest(signoz.RequestTimeSeries, from, to, signoz.BuilderQuery{Name: "A", Signal: signoz.SignalTraces, StepInterval: 60,
				Filter: signoz.Filter{Expression: f}, Aggregations: aggs, GroupBy: by, Limit: MaxOperationSeries})}
		}
		qs = append(qs, series(name, and(svc, notMarker), two), series(errName, and(svc, notMarker, "has_error = true"), one))
	}
	return append(append(qs, opVersionQueries(svc, from, to)...), statusQueries(svc, from, to)...)
}

// opQueryNames are the names of the two queries by the operation keys keys
// (the spans, their errors).
func opQueryNames(keys []string) (string, string) {
	name := "per_minute_op_" + strings.Join(keys, "_")
	return name, name + "_errors"
}

// Names of opVersionQueries.
const (
	qOpVersions    = "per_minute_op_versions"
	qOpVersionErrs = "per_minute_op_version_errors"
)

// statusQueryName is the name of statusQueries' query by the status key k.
func statusQueryName(k string) string { return "per_minute_op_status_" + k }

// statusQueries are the per-minute rejections of the service's server
// spans (facts.StatusRejected: a gRPC code the conventions leave unset on a
// server span, has_error false) by span name and kind, service.version and
// the code, one query for each of facts.StatusKeys (the numeric
// rpc.grpc.status_code, the newer conventions' rpc.response.status_code
// name). Optional: a key SigNoz never saw is refused and counts nothing.
func statusQueries(svc string, from, to int64) []Query {
	version := signoz.FieldKey{Name: "service.version", FieldContext: "resource", FieldDataType: "string"}
	var nums, names []string
	for _, c := range facts.RejectCodeNumbers() {
		nums = append(nums, strconv.Itoa(c))
	}
	for _, n := range facts.RejectCodeNames() {
		names = append(names, Quote(n))
	}
	in := map[string]string{facts.StatusKeys[0]: strings.Join(nums, ", "), facts.StatusKeys[1]: strings.Join(names, ", ")}
	dataType := map[string]string{facts.StatusKeys[0]: "number", facts.StatusKeys[1]: "string"}
	var qs []Query
	for _, k := range facts.StatusKeys {
		by := []signoz.FieldKey{span("name", "string"), span("kind_string", "string"), version, {Name: k, FieldContext: "attribute", FieldDataType: dataType[k]}}
		qs = append(qs, Query{Name: statusQueryName(k), Optional: true, Request: signoz.NewRequest(signoz.RequestTimeSeries, from, to, signoz.BuilderQuery{Name: "A", Signal: signoz.SignalTraces, StepInterval: 60,
			Filter:       signoz.Filter{Expression: and(svc, "kind = 2", "has_error = false", k+" IN ("+in[k]+")")},
			Aggregations: []signoz.Aggregation{{Expression: "count()"}}, GroupBy: by, Limit: 100})})
	}
	return qs
}

// operationSeries reads the per-minute series of every operation from the
// first stage's answers, named "name KIND", "route <r>" or "rpc <m>", and
// the filter that selects each one's spans. A grouping SigNoz refused (an
// attribute it never saw) has no series.
func operationSeries(first firstAnswers) (map[string][]Minute, map[string]string, error) {
	out, filters := map[string][]Minute{}, map[string]string{}
	for _, keys := range operationKeys {
		name, errName := opQueryNames(keys)
		all, errs := first.of(name), first.of(errName)
		if all.Refused != "" || errs.Refused != "" {
			continue
		}
		by, err := perMinuteGrouped(all, errs, labelJoin(keys...))
		if err != nil {
			return nil, nil, err
		}
		prefix := map[string]string{"http.route": "route ", "rpc.method": "rpc "}[keys[0]]
		for op, ms := range by {
			slices.SortFunc(ms, func(x, y Minute) int { return x.At.Compare(y.At) })
			out[prefix+op] = ms
		}
		if err := operationFilters(all, keys, prefix, filters); err != nil {
			return nil, nil, err
		}
	}
	return out, filters, nil
}

// operationFilters records, for each series of resp, the filter selecting
// its spans: every group-by key equal to the series' value.
func operationFilters(resp signoz.Response, keys []string, prefix string, filters map[string]string) error {
	return badResponse(facts.EachSeries(resp, labelJoin(keys...), func(g string, _ int, s signoz.Series) {
		var conds []string
		for _, k := range keys {
			conds = append(conds, k+" = "+Quote(labelOf(k)(s)))
		}
		filters[prefix+g] = and(conds...)
	}))
}

// departuresLine says which operations left their own baseline, for the
// model and the human.
func departuresLine(deps []contracts.OperationDeparture) string {
	var parts []string
	for _, d := range deps {
		parts = append(parts, fmt.Sprintf("%s %s %s -> %s from %s", compact.Quote(d.Operation), d.Signal, fmtF(d.Before), fmtF(d.Since), d.At.Format(time.RFC3339)))
	}
	return "operations off their own baseline (significant over every operation looked at): " + strings.Join(parts, "; ")
}

// opVersionQueries are the per-minute spans of each span name and kind by
// service.version (every span: the first minute a version served), and their
// errors by service.version and status message. Optional: without them no
// operation's onset moves.
func opVersionQueries(svc string, from, to int64) []Query {
	version := signoz.FieldKey{Name: "service.version", FieldContext: "resource", FieldDataType: "string"}
	by := []signoz.FieldKey{span("name", "string"), span("kind_string", "string"), version}
	q := func(name, filter string, by []signoz.FieldKey) Query {
		return Query{Name: name, Optional: true, Request: signoz.NewRequest(signoz.RequestTimeSeries, from, to, signoz.BuilderQuery{Name: "A", Signal: signoz.SignalTraces, StepInterval: 60,
			Filter: signoz.Filter{Expression: filter}, Aggregations: []signoz.Aggregation{{Expression: "count()"}}, GroupBy: by, Limit: 100})}
	}
	return []Query{
		q(qOpVersions, and(svc, notMarker), by),
		q(qOpVersionErrs, and(svc, notMarker, "has_error = true"), append(by, signoz.FieldKey{Name: "status_message", FieldContext: "span", FieldDataType: "string"})),
	}
}
