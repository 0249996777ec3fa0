package rules_test

import (
	"fmt"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/services/investigator/internal/loop"
	"agentk/services/investigator/internal/loop/looptest"
	"agentk/services/investigator/internal/rules"

	"github.com/stretchr/testify/require"
)

// TestWhatDepartedFirstAndWhoSaidSo covers session 24's readings (branch
// h54rules), each with a twin that differs in the one fact: the model's
// answers placed the onset over a background of errors (prompt_regression,
// was bad_release); a dependency the sandbox found failing at its usual
// rate, though the failures begin in the service's own spans
// (dependency_outage, was unknown); every endpoint slower with the retries
// per request risen (retry_storm, was resource_saturation); the service's
// own 429s when only the kept outcomes rose (traffic_surge, was
// resource_saturation).
func TestWhatDepartedFirstAndWhoSaidSo(t *testing.T) {
	t.Parallel()
	onset := looptest.Base.Add(-15 * time.Minute)
	marker := ev("mk", contracts.ToolDeploymentMarkers, contracts.Facts{MarkerQuery: true, DeploymentMarkers: []contracts.DeploymentMarker{{Service: "shop-api", Version: "v5", At: onset.Add(-6 * time.Minute)}}}, "")
	noMarker := ev("mk", contracts.ToolDeploymentMarkers, contracts.Facts{MarkerQuery: true}, "")
	overview := func(rate float64, f contracts.Facts) loop.Evidence {
		f.ErrorRate, f.P95Ms, f.Onset = f64(rate), f64(300), &onset
		if f.TrafficRatio == nil {
			f.TrafficRatio = f64(1.0)
		}
		return ev("ov", contracts.ToolServiceOverview, f, "")
	}
	ownFault := errorTraces(`{"service":"shop-api","trace_id":"t1","span_id":"s1","kind":"Server","error":true,"http.response.status_code":500,"error.type":"TimeoutError","status_message":"x"}`,
		`{"service":"shop-api","trace_id":"t2","span_id":"s2","kind":"Server","error":true,"http.response.status_code":500,"error.type":"TimeoutError","status_message":"x"}`,
		`{"service":"shop-api","trace_id":"t3","span_id":"s3","kind":"Server","error":true,"http.response.status_code":500,"error.type":"TimeoutError","status_message":"x"}`)
	// s553217-w006's shape: an evaluation score fell and the answers grew
	// after a release; 5% of requests fail, as they did before.
	answers := []contracts.QualityShift{{Attribute: "gen_ai.usage.output_tokens", At: onset, Before: 300, Since: 1100, Statistic: 60},
		{Attribute: "eval.relevance_score", At: onset, Before: 0.86, Since: 0.41, Statistic: 80}}
	answered := func(attr string) contracts.Facts {
		return contracts.Facts{QualityShifts: answers, OnsetAttribute: attr}
	}
	// s553217-w017's shape: the failures begin in the service's own spans;
	// one trace shows the call to the limiter failing, and the sandbox
	// found the limiter failing at its usual rate.
	limiter := errorTraces(`{"service":"shop-api","trace_id":"t1","span_id":"s1","kind":"Server","error":true,"http.response.status_code":500,"status_message":"rate check failed"}`,
		`{"service":"shop-api","trace_id":"t2","span_id":"s2","kind":"Server","error":true,"http.response.status_code":500,"status_message":"rate check failed"}`,
		`{"service":"shop-api","trace_id":"t3","span_id":"s3","kind":"Server","error":true,"http.response.status_code":500,"status_message":"rate check failed"}`,
		`{"service":"shop-api","trace_id":"t4","span_id":"s4","kind":"Server","error":true,"http.response.status_code":500,"status_message":"rate check failed"}`,
		`{"service":"shop-api","trace_id":"t4","span_id":"c4","parent_span_id":"s4","kind":"Client","error":true,"server.address":"rate-limiter-svc"}`)
	byKind := []string{"name", "kind_string"}
	// s18-w001's shape: the limiter's span slowed and dominates the
	// service's latency growth.
	slowed := []loop.Evidence{
		agg("bf", contracts.ToolArgs{Aggregation: "p95", GroupBy: byKind, To: &onset}, `{"kind_string":"Server","name":"GET /a","p95_ms":120}`, `{"kind_string":"Client","name":"POST","p95_ms":60}`),
		agg("af", contracts.ToolArgs{Aggregation: "p95", GroupBy: byKind, From: &onset}, `{"kind_string":"Server","name":"GET /a","p95_ms":1400}`, `{"kind_string":"Client","name":"POST","p95_ms":1300}`),
	}
	// s908341-w004's shape: every endpoint slower together, no dependency
	// span dominating; retry log lines.
	even := []loop.Evidence{
		agg("bf", contracts.ToolArgs{Aggregation: "p95", GroupBy: byKind, To: &onset}, `{"kind_string":"Server","name":"GET /a","p95_ms":100}`, `{"kind_string":"Server","name":"GET /b","p95_ms":110}`),
		agg("af", contracts.ToolArgs{Aggregation: "p95", GroupBy: byKind, From: &onset}, `{"kind_string":"Server","name":"GET /a","p95_ms":900}`, `{"kind_string":"Server","name":"GET /b","p95_ms":950}`),
		ev("lg", contracts.ToolErrorLogs, contracts.Facts{}, `"retrying call to ledger (attempt 4)"`),
	}
	retries := func(ratio float64) contracts.Facts {
		return contracts.Facts{Retries: &contracts.RetryRise{Source: "logs", Key: "retry log lines", Since: 3, Baseline: 0.1, Ratio: ratio, Events: 90}}
	}
	// s908341-w021's shape: the kept spans 3.08x, the ordinary requests
	// 1.2x (under OrdinarySurge), the service's own server spans answer
	// 429.
	refusing := func(code int) loop.Evidence {
		var rows []string
		for i := range 6 {
			rows = append(rows, fmt.Sprintf(`{"service":"shop-api","trace_id":"t%d","span_id":"s%d","kind":"Server","error":true,"http.status_code":%d,"status_message":"busy"}`, i, i, code))
		}
		return errorTraces(rows...)
	}
	from, to := onset.Add(-10*time.Minute), onset.Add(5*time.Minute)
	filter := "kind_string IN ('Server', 'Consumer') AND has_error = false AND duration_nano < 800000000"
	ob := agg("ob", contracts.ToolArgs{Service: "shop-api", Aggregation: "count", GroupBy: []string{"kind_string"}, Filter: filter, From: &from, To: &onset}, `{"kind_string":"Server","count":100}`)
	ob.From, ob.To = from, onset
	oa := agg("oa", contracts.ToolArgs{Service: "shop-api", Aggregation: "count", GroupBy: []string{"name"}, Filter: filter, From: &onset, To: &to}, `{"name":"GET /a","count":60}`)
	oa.From, oa.To = onset, to
	kept := contracts.Facts{TrafficRatio: f64(3.08)}
	tests := []struct {
		name     string
		evidence []loop.Evidence
		class    string
	}{
		{"after a release, the answers placed the onset over the usual errors", []loop.Evidence{overview(0.06, answered("eval.relevance_score")), marker, ownFault}, "prompt_regression"},
		{"after a release, the answers shifted, the errors came first", []loop.Evidence{overview(0.06, answered("")), marker, ownFault}, "bad_release"},
		{"after a release, a setting placed the onset", []loop.Evidence{overview(0.06, answered("app.config.mode")), marker, ownFault}, "bad_release"},
		{"no release: a dependency failing at its usual rate, the failures in the service's own spans", []loop.Evidence{overview(0.22, contracts.Facts{FailingDependencies: []string{"rate-limiter-svc"}}), noMarker, limiter}, "dependency_outage"},
		{"no release: no dependency failing, the failures in the service's own spans", []loop.Evidence{overview(0.22, contracts.Facts{}), noMarker, limiter}, contracts.ClassUnknown},
		{"no release: the dependency failing at its usual rate slowed first and dominates", append([]loop.Evidence{overview(0.22, contracts.Facts{FailingDependencies: []string{"rate-limiter-svc"}}), noMarker, limiter}, slowed...), "retrieval_latency"},
		{"no release: every endpoint slower, the retries per request risen", append([]loop.Evidence{overview(0.16, retries(6)), noMarker}, even...), "retry_storm"},
		{"no release: every endpoint slower, the retries per request as before", append([]loop.Evidence{overview(0.16, retries(1.1)), noMarker}, even...), "resource_saturation"},
		{"no release: only the kept outcomes rose, the service answers 429", []loop.Evidence{overview(0.09, kept), noMarker, refusing(429), ob, oa}, "traffic_surge"},
		{"no release: only the kept outcomes rose, the service answers 503", []loop.Evidence{overview(0.09, kept), noMarker, refusing(503), ob, oa}, contracts.ClassUnknown},
		{"after a release: only the kept outcomes rose, the service answers 429", []loop.Evidence{overview(0.09, kept), marker, refusing(429), ob, oa}, "bad_release"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			claims := rules.Diagnose(rules.Observe("shop-api", tc.evidence))
			require.Equal(t, tc.class, claims[0].Class, claims[0].Statement)
		})
	}
}
