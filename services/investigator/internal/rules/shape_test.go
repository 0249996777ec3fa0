package rules_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/services/investigator/internal/loop"
	"agentk/services/investigator/internal/loop/looptest"
	"agentk/services/investigator/internal/rules"

	"github.com/stretchr/testify/require"
)

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
	traces := func(rows ...string) loop.Evidence {
		return ev("tr", contracts.ToolErrorTraces, contracts.Facts{}, "tool: error_traces\n<<<DATA rows=n\n"+strings.Join(rows, "\n")+"\nDATA>>>")
	}
	callFails := traces(
		`{"service":"shop-api","trace_id":"t1","span_id":"c1","parent_span_id":"s1","kind":"Client","error":true,"server.address":"rates.example","status_message":"lookup failed"}`,
		`{"service":"shop-api","trace_id":"t1","span_id":"s1","kind":"Server","error":true,"http.response.status_code":502,"status_message":"bad gateway"}`)
	tests := []struct {
		name     string
		evidence []loop.Evidence
		class    string
		feature  rules.Feature
	}{
		{"one dependency span dominates the growth", []loop.Evidence{quiet, noMarker,
			before(`{"kind_string":"Server","name":"GET /a","p95_ms":300}`, `{"kind_string":"Client","name":"POST search","p95_ms":100}`),
			after(`{"kind_string":"Server","name":"GET /a","p95_ms":2300}`, `{"kind_string":"Client","name":"POST search","p95_ms":2000}`)},
			"retrieval_latency", rules.FeatChildSlow},
		{"every endpoint slower, no child dominates", []loop.Evidence{quiet, noMarker,
			before(`{"kind_string":"Server","name":"GET /a","p95_ms":100}`, `{"kind_string":"Server","name":"GET /b","p95_ms":80}`, `{"kind_string":"Client","name":"SELECT","p95_ms":10}`),
			after(`{"kind_string":"Server","name":"GET /a","p95_ms":400}`, `{"kind_string":"Server","name":"GET /b","p95_ms":300}`, `{"kind_string":"Client","name":"SELECT","p95_ms":12}`)},
			"resource_saturation", rules.FeatEvenSlow},
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
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			claims := rules.Diagnose(rules.Observe("shop-api", tc.evidence))
			require.Equal(t, tc.class, claims[0].Class, claims[0].Statement)
			require.NotRegexp(t, `[0-9]`, claims[0].Statement, "statements carry no numbers")
			if tc.feature != "" {
				require.Contains(t, claims[0].Statement, string(tc.feature))
			}
		})
	}
}
