package rules_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/table"
	"agentk/services/investigator/internal/loop"
	"agentk/services/investigator/internal/loop/looptest"
	"agentk/services/investigator/internal/rules"

	"github.com/stretchr/testify/require"
)

// TestDiagnoseFromSemanticConventions: the rules read OpenTelemetry features
// of the error spans (in either semantic-convention version), not the words
// of their messages; the claim names the feature it read.
func TestDiagnoseFromSemanticConventions(t *testing.T) {
	t.Parallel()
	onset := looptest.Base.Add(-15 * time.Minute)
	// An overview with a low error rate, so that only the features decide.
	overview := ev("ov", contracts.ToolServiceOverview, contracts.Facts{ErrorRate: f64(0.03), P95Ms: f64(200), Onset: &onset}, "")
	// hot is an overview whose error rate alone reads as a release fault
	// after a deployment (at least rules.ReleaseErrorRate).
	hot := ev("ov", contracts.ToolServiceOverview, contracts.Facts{ErrorRate: f64(0.3), P95Ms: f64(200), Onset: &onset}, "")
	marker := ev("mk", contracts.ToolDeploymentMarkers, contracts.Facts{MarkerQuery: true, DeploymentMarkers: []contracts.DeploymentMarker{{Service: "shop-api", Version: "2.14.0", At: onset.Add(-4 * time.Minute)}}}, "")
	noMarker := ev("mk", contracts.ToolDeploymentMarkers, contracts.Facts{MarkerQuery: true}, "")
	traces := errorTraces
	tests := []featureCase{
		{"5xx under the new attribute name after a release", []loop.Evidence{hot, marker, traces(
			`{"service":"shop-api","version":"2.13.0","kind":"Server","error":true,"http.response.status_code":500,"status_message":"Duplicate key LineItem"}`)},
			"bad_release", rules.FeatServer5xx},
		{"5xx under the old attribute name after a release", []loop.Evidence{hot, marker, traces(
			`{"service":"shop-api","version":"2.13.0","kind":"Server","error":true,"http.status_code":503,"status_message":"no"}`)},
			"bad_release", rules.FeatServer5xx},
		{"errors only on the new version are cited", []loop.Evidence{hot, marker, traces(
			`{"service":"shop-api","version":"2.14.0","kind":"Server","error":true,"http.status_code":500,"status_message":"x"}`,
			`{"service":"shop-api","version":"2.14.0","kind":"Server","error":true,"http.status_code":500,"status_message":"y"}`,
			`{"service":"shop-api","version":"2.14.0","kind":"Server","error":true,"http.status_code":500,"status_message":"z"}`)},
			"bad_release", rules.FeatNewVersion},
		{"a trickle of 5xx without exceptions after a release decides nothing", []loop.Evidence{overview, marker, traces(
			`{"service":"shop-api","version":"2.14.0","kind":"Server","error":true,"http.response.status_code":500,"status_message":"internal error"}`)},
			contracts.ClassUnknown, ""},
		{"an exception after a release is a release fault", []loop.Evidence{overview, marker, traces(
			`{"service":"shop-api","version":"2.14.0","kind":"Server","error":true,"http.response.status_code":500,"exception.type":"java.lang.NullPointerException","status_message":"x"}`)},
			"bad_release", rules.FeatException},
		{"errors only on the new version do not make a release fault alone", []loop.Evidence{overview, marker, traces(
			`{"service":"shop-api","version":"2.14.0","kind":"Internal","error":true,"status_message":"x"}`,
			`{"service":"shop-api","version":"2.14.0","kind":"Internal","error":true,"status_message":"y"}`,
			`{"service":"shop-api","version":"2.14.0","kind":"Internal","error":true,"status_message":"z"}`)},
			contracts.ClassUnknown, ""},
		{"a failing dependency with a coinciding release is the dependency", []loop.Evidence{overview, marker, traces(
			`{"service":"shop-api","version":"2.14.0","kind":"Client","error":true,"net.peer.name":"checkout-test.adyen.com","http.status_code":503,"status_message":"x"}`,
			`{"service":"shop-api","version":"2.14.0","kind":"Server","error":true,"http.status_code":502,"status_message":"x"}`)},
			"dependency_outage", rules.FeatPeer},
		{"a pool attribute on failing spans", []loop.Evidence{overview, noMarker, traces(
			`{"service":"shop-api","kind":"Internal","error":true,"db.client.connection.pool.name":"accounts","status_message":"timed out acquiring"}`)},
			"db_pool_exhaustion", rules.FeatPool},
		{"resends of failing client spans after a release", []loop.Evidence{overview, marker, traces(
			`{"service":"shop-api","kind":"Client","error":true,"http.request.resend_count":3,"peer.service":"identity","status_message":"context deadline exceeded"}`)},
			"retry_storm", rules.FeatResend},
		{"failing client spans to a peer, no release", []loop.Evidence{overview, noMarker, traces(
			`{"service":"shop-api","kind":"Client","error":true,"net.peer.name":"checkout-test.adyen.com","http.status_code":503,"status_message":"x"}`,
			`{"service":"shop-api","kind":"Server","error":true,"http.status_code":502,"status_message":"x"}`)},
			"dependency_outage", rules.FeatPeer},
		{"another service's rows are not this service's features", []loop.Evidence{overview, marker, traces(
			`{"service":"web","version":"2.14.0","kind":"Server","error":true,"http.status_code":500}`)},
			contracts.ClassUnknown, ""},
	}
	runFeatureCases(t, tests, "tr")
}

// featureCase is one diagnosis from evidence: the class expected and the
// feature its claim must name ("" for none).
type featureCase struct {
	name     string
	evidence []loop.Evidence
	class    string
	feature  rules.Feature
}

// runFeatureCases diagnoses each case, with its data rows one object per
// line and again written as the sandbox's tables (contracts/table); a claim
// that names its feature cites the evidence id cite too, unless cite is "".
func runFeatureCases(t *testing.T, tests []featureCase, cite string) {
	t.Helper()
	for _, tc := range tests {
		for _, form := range []string{"lines", "table"} {
			t.Run(tc.name+"/"+form, func(t *testing.T) {
				t.Parallel()
				evidence := tc.evidence
				if form == "table" {
					evidence = asTables(t, evidence)
				}
				checkFeatureCase(t, tc, evidence, cite)
			})
		}
	}
}

// asTables writes the data block of each piece of evidence as the sandbox
// does (table.Render), with the same rows.
func asTables(t *testing.T, evidence []loop.Evidence) []loop.Evidence {
	t.Helper()
	out := make([]loop.Evidence, len(evidence))
	for i, e := range evidence {
		out[i] = e
		head, rest, ok := strings.Cut(e.Compact, "<<<DATA rows=n\n")
		if !ok {
			continue
		}
		body, tail, ok := strings.Cut(rest, "DATA>>>")
		require.True(t, ok, e.Compact)
		var rows []any
		for _, line := range strings.Split(strings.TrimSpace(body), "\n") {
			var row any
			require.NoError(t, json.Unmarshal([]byte(line), &row), line)
			rows = append(rows, row)
		}
		out[i].Compact = head + table.Render(rows) + tail
	}
	return out
}

func checkFeatureCase(t *testing.T, tc featureCase, evidence []loop.Evidence, cite string) {
	t.Helper()
	claims := rules.Diagnose(rules.Observe("shop-api", evidence))
	require.Equal(t, tc.class, claims[0].Class, claims[0].Statement)
	require.NotRegexp(t, `[0-9]`, claims[0].Statement, "statements carry no numbers")
	if tc.feature != "" {
		require.Contains(t, claims[0].Statement, string(tc.feature))
		if cite != "" {
			require.Contains(t, claims[0].EvidenceIDs, cite)
		}
	}
}

// agg is an aggregate_traces evidence with the arguments the rules asked
// and the sandbox's data rows.
func agg(id string, a contracts.ToolArgs, rows ...string) loop.Evidence {
	b, _ := json.Marshal(a)
	e := ev(id, contracts.ToolAggregateTraces, contracts.Facts{}, "tool: aggregate_traces\n<<<DATA rows=n\n"+strings.Join(rows, "\n")+"\nDATA>>>")
	e.Arguments = b
	return e
}

// TestDiagnoseFromLatencyShapeAndHosts: the follow-up aggregates (latency by
// span name and kind before and after the onset, model calls, hosts, the
// marker's deployment.type) decide the classes that show no error pattern.
func TestDiagnoseFromLatencyShapeAndHosts(t *testing.T) {
	t.Parallel()
	onset := looptest.Base.Add(-15 * time.Minute)
	quiet := ev("ov", contracts.ToolServiceOverview, contracts.Facts{ErrorRate: f64(0.005), P95Ms: f64(2500), Onset: &onset, TrafficRatio: f64(1.05)}, "")
	failing := ev("ov", contracts.ToolServiceOverview, contracts.Facts{ErrorRate: f64(0.04), P95Ms: f64(300), Onset: &onset, TrafficRatio: f64(1.0)}, "")
	marker := ev("mk", contracts.ToolDeploymentMarkers, contracts.Facts{MarkerQuery: true, DeploymentMarkers: []contracts.DeploymentMarker{{Service: "shop-api", Version: "v8", At: onset.Add(-4 * time.Minute)}}}, "")
	noMarker := ev("mk", contracts.ToolDeploymentMarkers, contracts.Facts{MarkerQuery: true}, "")
	byKind := []string{"name", "kind_string"}
	before := func(rows ...string) loop.Evidence {
		return agg("bf", contracts.ToolArgs{Aggregation: "p95", GroupBy: byKind, To: &onset}, rows...)
	}
	after := func(rows ...string) loop.Evidence {
		return agg("af", contracts.ToolArgs{Aggregation: "p95", GroupBy: byKind, From: &onset}, rows...)
	}
	model := agg("md", contracts.ToolArgs{Aggregation: "p95", GroupBy: []string{"name", "gen_ai.request.model"}}, `{"gen_ai.request.model":"m","name":"chat m","p95_ms":900}`)
	hosts := func(q []string, rows ...string) loop.Evidence {
		a := contracts.ToolArgs{Aggregation: "count", GroupBy: []string{"server.address"}, Filter: "kind_string = 'Client'"}
		if q[0] == "before" {
			a.To = &onset
		} else {
			a.From = &onset
		}
		return agg(q[1], a, rows...)
	}
	change := agg("ch", contracts.ToolArgs{Aggregation: "count", GroupBy: []string{"deployment.type"}, Filter: "name = 'deployment.marker'"}, `{"count":1,"deployment.type":"config"}`)
	traces := errorTraces
	callFails := traces(
		`{"service":"shop-api","trace_id":"t1","span_id":"c1","parent_span_id":"s1","kind":"Client","error":true,"server.address":"rates.example","status_message":"lookup failed"}`,
		`{"service":"shop-api","trace_id":"t1","span_id":"s1","kind":"Server","error":true,"http.response.status_code":502,"status_message":"bad gateway"}`)
	tests := []featureCase{
		{"one dependency span dominates the growth", []loop.Evidence{quiet, noMarker,
			before(`{"kind_string":"Server","name":"GET /a","p95_ms":300}`, `{"kind_string":"Client","name":"POST search","p95_ms":100}`),
			after(`{"kind_string":"Server","name":"GET /a","p95_ms":2300}`, `{"kind_string":"Client","name":"POST search","p95_ms":2000}`)},
			"retrieval_latency", rules.FeatChildSlow},
		// s18-w097 cut to 20 min before its onset, or with ×10 traffic: the
		// retrieval call slowed 66 → 504 ms, the four sampled server spans
		// since the split show no growth (so nothing dominates one), and the
		// few timeouts begin in that call. A slowed dependency's timeouts
		// are no outage.
		{"a slowed dependency with a few timeouts, the server p95 hiding it", []loop.Evidence{quiet, noMarker, traces(
			`{"service":"shop-api","trace_id":"t1","span_id":"c1","parent_span_id":"s1","kind":"Client","error":true,"server.address":"index.internal","status_message":"context deadline exceeded"}`,
			`{"service":"shop-api","trace_id":"t1","span_id":"s1","kind":"Server","error":true,"http.status_code":504,"status_message":"retrieval from index exceeded its deadline"}`),
			before(`{"kind_string":"Server","name":"POST /api/orders","p95_ms":1500}`, `{"kind_string":"Client","name":"POST","p95_ms":66}`),
			after(`{"kind_string":"Server","name":"POST /api/orders","p95_ms":1144}`, `{"kind_string":"Client","name":"POST","p95_ms":504}`)},
			"retrieval_latency", ""},
		{"every endpoint slower, no child dominates", []loop.Evidence{quiet, noMarker,
			before(`{"kind_string":"Server","name":"GET /a","p95_ms":100}`, `{"kind_string":"Server","name":"GET /b","p95_ms":80}`, `{"kind_string":"Client","name":"SELECT","p95_ms":10}`),
			after(`{"kind_string":"Server","name":"GET /a","p95_ms":400}`, `{"kind_string":"Server","name":"GET /b","p95_ms":300}`, `{"kind_string":"Client","name":"SELECT","p95_ms":12}`)},
			"resource_saturation", rules.FeatEvenSlow},
		// st-even-slowdown-catalog-read's shape: the handler's internal span
		// (the service's own code) slows with every endpoint; no dependency
		// span dominates. Red with internal spans counted as dependencies.
		{"every endpoint slower, its own internal span with it", []loop.Evidence{quiet, noMarker,
			before(`{"kind_string":"Server","name":"GET /a","p95_ms":100}`, `{"kind_string":"Server","name":"GET /b","p95_ms":80}`, `{"kind_string":"Internal","name":"views.a","p95_ms":55}`, `{"kind_string":"Client","name":"SELECT","p95_ms":10}`),
			after(`{"kind_string":"Server","name":"GET /a","p95_ms":400}`, `{"kind_string":"Server","name":"GET /b","p95_ms":300}`, `{"kind_string":"Internal","name":"views.a","p95_ms":220}`, `{"kind_string":"Client","name":"SELECT","p95_ms":12}`)},
			"resource_saturation", rules.FeatEvenSlow},
		// st-heap-creep-quote-svc's shape: a runtime attribute rose after a
		// release, a few timeouts carry an exception type. The runtime rise
		// reads as saturation before the release's exceptions. Red without
		// FeatRuntimeRise (bad_release).
		{"a runtime attribute rose after a release, a few exceptions", []loop.Evidence{
			ev("ov", contracts.ToolServiceOverview, contracts.Facts{ErrorRate: f64(0.02), P95Ms: f64(900), Onset: &onset, TrafficRatio: f64(1.0),
				RuntimeSaturation: &contracts.RuntimeLevel{Attribute: "jvm.memory.used", Since: 1.9e9, Minutes: 8, Baseline: 1.15e9, BaselineMinutes: 20}}, ""),
			marker, traces(`{"service":"shop-api","trace_id":"t1","span_id":"s1","kind":"Server","error":true,"http.response.status_code":504,"error.type":"java.net.SocketTimeoutException","status_message":"Read timed out"}`)},
			"resource_saturation", rules.FeatRuntimeRise},
		{"a flat runtime attribute after a release reads nothing", []loop.Evidence{
			ev("ov", contracts.ToolServiceOverview, contracts.Facts{ErrorRate: f64(0.2), P95Ms: f64(90), Onset: &onset, TrafficRatio: f64(1.0),
				RuntimeSaturation: &contracts.RuntimeLevel{Attribute: "jvm.memory.used", Since: 8.1e8, Minutes: 8, Baseline: 7.9e8, BaselineMinutes: 20}}, ""),
			marker, traces(`{"service":"shop-api","trace_id":"t1","span_id":"s1","kind":"Server","error":true,"http.response.status_code":500,"error.type":"java.lang.IllegalStateException","status_message":"currency scale mismatch"}`)},
			"bad_release", rules.FeatException},
		{"the model call slowed after a release", []loop.Evidence{quiet, marker, model,
			before(`{"kind_string":"Server","name":"POST /answer","p95_ms":1200}`, `{"kind_string":"Client","name":"chat m","p95_ms":600}`),
			after(`{"kind_string":"Server","name":"POST /answer","p95_ms":3600}`, `{"kind_string":"Client","name":"chat m","p95_ms":1500}`)},
			"prompt_regression", rules.FeatModelSlow},
		{"a slowed model call without a release is no prompt regression", []loop.Evidence{quiet, noMarker, model,
			before(`{"kind_string":"Server","name":"POST /answer","p95_ms":1200}`, `{"kind_string":"Client","name":"chat m","p95_ms":600}`),
			after(`{"kind_string":"Server","name":"POST /answer","p95_ms":1300}`, `{"kind_string":"Client","name":"chat m","p95_ms":1500}`)},
			contracts.ClassUnknown, ""},
		{"after a release, calls fail to a host never called before", []loop.Evidence{failing, marker, callFails,
			hosts([]string{"before", "hb"}, `{"count":90,"server.address":"rates.internal"}`),
			hosts([]string{"after", "ha"}, `{"count":20,"server.address":"rates.example"}`)},
			"config_regression", rules.FeatNewHost},
		{"after a release, calls fail to the host called all along", []loop.Evidence{failing, marker, callFails,
			hosts([]string{"before", "hb"}, `{"count":90,"server.address":"rates.example"}`),
			hosts([]string{"after", "ha"}, `{"count":20,"server.address":"rates.example"}`)},
			"dependency_outage", rules.FeatPeer},
		{"the marker says the release changed configuration", []loop.Evidence{failing, marker, change, traces(
			`{"service":"shop-api","kind":"Server","error":true,"http.status_code":500,"status_message":"no mapping for EUR"}`)},
			"config_regression", rules.FeatConfigChange},
		{"the marker says the release flipped a feature flag", []loop.Evidence{failing, marker,
			agg("ch", contracts.ToolArgs{Aggregation: "count", GroupBy: []string{"deployment.type"}, Filter: "name = 'deployment.marker'"}, `{"count":1,"deployment.type":"feature_flag"}`), traces(
				`{"service":"shop-api","kind":"Server","error":true,"http.status_code":500,"status_message":"ranker model 'ltr_v9' is not loaded"}`)},
			"config_regression", rules.FeatConfigChange},
		{"a connection acquired inside the database client fails", []loop.Evidence{failing, noMarker, traces(
			`{"service":"shop-api","trace_id":"t1","span_id":"p1","parent_span_id":"s1","kind":"Internal","error":true,"db.system":"postgresql","status_message":"timeout acquiring"}`,
			`{"service":"shop-api","trace_id":"t1","span_id":"s1","kind":"Server","error":true,"http.status_code":500,"status_message":"timeout acquiring"}`)},
			"db_pool_exhaustion", rules.FeatPool},
		{"a lookup inside a failing call belongs to the call", []loop.Evidence{failing, noMarker, traces(
			`{"service":"shop-api","trace_id":"t1","span_id":"d1","parent_span_id":"c1","kind":"Internal","error":true,"status_message":"i/o timeout"}`,
			`{"service":"shop-api","trace_id":"t1","span_id":"c1","parent_span_id":"s1","kind":"Client","error":true,"server.address":"acq.example","status_message":"dial tcp: i/o timeout"}`,
			`{"service":"shop-api","trace_id":"t1","span_id":"s1","kind":"Server","error":true,"http.status_code":504,"status_message":"upstream unreachable"}`)},
			"dependency_outage", rules.FeatPeer},
		{"one repeated fault in the service's own spans after a release", []loop.Evidence{failing, marker, traces(
			`{"service":"shop-api","trace_id":"a","span_id":"1","kind":"Server","error":true,"http.status_code":500,"status_message":"KeyError: 'currency'"}`,
			`{"service":"shop-api","trace_id":"b","span_id":"2","kind":"Server","error":true,"http.status_code":500,"status_message":"KeyError: 'currency'"}`,
			`{"service":"shop-api","trace_id":"c","span_id":"3","kind":"Server","error":true,"http.status_code":500,"status_message":"KeyError: 'currency'"}`)},
			"bad_release", rules.FeatOneError},
		{"assorted transient errors after a release decide nothing", []loop.Evidence{failing, marker, traces(
			`{"service":"shop-api","trace_id":"a","span_id":"1","kind":"Server","error":true,"http.status_code":500,"status_message":"unexpected EOF"}`,
			`{"service":"shop-api","trace_id":"b","span_id":"2","kind":"Server","error":true,"http.status_code":500,"status_message":"broken pipe"}`,
			`{"service":"shop-api","trace_id":"c","span_id":"3","kind":"Server","error":true,"http.status_code":500,"status_message":"internal error"}`)},
			contracts.ClassUnknown, ""},
	}
	runFeatureCases(t, tests, "")
}
