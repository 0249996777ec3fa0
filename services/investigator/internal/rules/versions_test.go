package rules_test

import (
	"testing"
	"time"

	"agentk/contracts"
	"agentk/services/investigator/internal/loop"
	"agentk/services/investigator/internal/loop/looptest"
	"agentk/services/investigator/internal/rules"
)

// TestWhatEveryVersionAndTheServiceSay covers the facts read in session 20
// (branch h50rules), each with a twin that differs in the one fact: a
// region's requests moved onto another (traffic_surge, was
// db_pool_exhaustion); the errors confined to one node, the same version
// clean on the others (resource_saturation, was db_pool_exhaustion); every
// version failing in its own code since the onset (dependency_outage, was
// bad_release), not when messages were redelivered or the failures begin in
// calls to a peer; a configuration change the service logged at the onset
// after its release (config_regression, was bad_release), not in the
// release's first minute; retries inside one slowed span (retry_storm, was
// retrieval_latency); a slow model provider whose answers grew
// (prompt_regression, was retrieval_latency).
func TestWhatEveryVersionAndTheServiceSay(t *testing.T) {
	t.Parallel()
	onset := looptest.Base.Add(-15 * time.Minute)
	markerAt := onset.Add(-4 * time.Minute)
	marker := ev("mk", contracts.ToolDeploymentMarkers, contracts.Facts{MarkerQuery: true, DeploymentMarkers: []contracts.DeploymentMarker{{Service: "shop-api", Version: "v5", At: markerAt}}}, "")
	// A release two minutes before the onset: its first minute lies in
	// the minutes around the onset that configuration-change logs are read in.
	nearAt := onset.Add(-2*time.Minute + 10*time.Second)
	nearMarker := ev("mk", contracts.ToolDeploymentMarkers, contracts.Facts{MarkerQuery: true, DeploymentMarkers: []contracts.DeploymentMarker{{Service: "shop-api", Version: "v5", At: nearAt}}}, "")
	noMarker := ev("mk", contracts.ToolDeploymentMarkers, contracts.Facts{MarkerQuery: true}, "")
	overview := func(f contracts.Facts) loop.Evidence {
		f.ErrorRate, f.P95Ms, f.Onset, f.TrafficRatio = f64(0.15), f64(90), &onset, f64(1.0)
		return ev("ov", contracts.ToolServiceOverview, f, "")
	}
	// The released version v5 and the versions beside it since the onset:
	// other of their requests, otherErrors failing; 32 errors in the
	// history's 1224 requests (vt-trap-null-handles-plus5s-account-portal's
	// figures).
	versions := func(other, otherErrors, redelivered int64) contracts.Facts {
		return contracts.Facts{Release: &contracts.ReleaseErrors{Version: "v5", FirstSeen: markerAt, HistoryMinutes: 58, HistoryErrors: 32, Requests: 919, Errors: 301,
			OtherRequests: other, Redelivered: redelivered,
			OtherVersions: &contracts.OtherVersionErrors{Requests: other, Errors: otherErrors, HistoryRequests: 1224, HistoryErrors: 32}}}
	}
	ownFault := errorTraces(`{"service":"shop-api","trace_id":"t1","span_id":"s1","kind":"Server","error":true,"http.response.status_code":500,"error.type":"TypeError","status_message":"x"}`,
		`{"service":"shop-api","trace_id":"t2","span_id":"s2","kind":"Server","error":true,"http.response.status_code":500,"error.type":"TypeError","status_message":"x"}`,
		`{"service":"shop-api","trace_id":"t3","span_id":"s3","kind":"Server","error":true,"http.response.status_code":500,"error.type":"TypeError","status_message":"x"}`)
	peerFails := errorTraces(`{"service":"shop-api","trace_id":"t1","span_id":"c1","parent_span_id":"s1","kind":"Client","error":true,"server.address":"rates.internal","http.response.status_code":503}`,
		`{"service":"shop-api","trace_id":"t1","span_id":"c2","parent_span_id":"s1","kind":"Client","error":true,"server.address":"rates.internal","http.response.status_code":503}`,
		`{"service":"shop-api","trace_id":"t1","span_id":"s1","kind":"Server","error":true,"http.response.status_code":502,"status_message":"rates failed"}`)
	configLog := func(at time.Time) contracts.Facts {
		return contracts.Facts{ConfigChanges: []contracts.LogMinute{{At: at, Logs: 3}}}
	}
	byKind := []string{"name", "kind_string"}
	before := func(rows ...string) loop.Evidence {
		return agg("bf", contracts.ToolArgs{Aggregation: "p95", GroupBy: byKind, To: &onset}, rows...)
	}
	after := func(rows ...string) loop.Evidence {
		return agg("af", contracts.ToolArgs{Aggregation: "p95", GroupBy: byKind, From: &onset}, rows...)
	}
	// s263119-w012's shape: an internal span that retries inside itself
	// dominates the growth; its server spans fail in their own code.
	inSpan := []loop.Evidence{
		before(`{"kind_string":"Server","name":"GET /healthz","p95_ms":802}`, `{"kind_string":"Server","name":"PUT /api/profile/{id}","p95_ms":266}`, `{"kind_string":"Internal","name":"POST","p95_ms":43}`),
		after(`{"kind_string":"Server","name":"PUT /api/profile/{id}","p95_ms":1086}`, `{"kind_string":"Internal","name":"POST","p95_ms":898}`, `{"kind_string":"Server","name":"GET /healthz","p95_ms":226}`),
		ev("lg", contracts.ToolErrorLogs, contracts.Facts{}, `"retrying call to tax-calc (attempt 6)"`),
	}
	retries := func(ratio float64) contracts.Facts {
		return contracts.Facts{ErrorRate: f64(0.03), P95Ms: f64(690), Onset: &onset, TrafficRatio: f64(0.93),
			Retries: &contracts.RetryRise{Source: "logs", Key: "retry log lines", Since: 2, Baseline: 0.01, Ratio: ratio}}
	}
	// fb9-prompt-v19-tone-agent-desk's shape: the model provider slower at
	// its usual call rate, the model call slower, its answers longer.
	model := agg("md", contracts.ToolArgs{Aggregation: "p95", GroupBy: []string{"name", "gen_ai.request.model"}}, `{"gen_ai.request.model":"m","name":"chat m","p95_ms":6000}`)
	modelShape := []loop.Evidence{model,
		before(`{"kind_string":"Server","name":"POST /replies","p95_ms":3400}`, `{"kind_string":"Client","name":"chat m","p95_ms":3300}`),
		after(`{"kind_string":"Server","name":"POST /replies","p95_ms":6900}`, `{"kind_string":"Client","name":"chat m","p95_ms":6800}`)}
	provider := func(shifts []contracts.QualityShift) loop.Evidence {
		return ev("ov", contracts.ToolServiceOverview, contracts.Facts{ErrorRate: f64(0), P95Ms: f64(5800), Onset: &onset, TrafficRatio: f64(0.98),
			SlowDependencies: []string{"api.openai.com"}, QualityShifts: shifts,
			Release: &contracts.ReleaseErrors{Version: "v5", FirstSeen: onset, HistoryMinutes: 69, Requests: 252}}, "")
	}
	longer := []contracts.QualityShift{{Attribute: "gen_ai.usage.output_tokens", At: onset, Before: 197, Since: 582, Statistic: 40}}
	// fb9-trap-region-failover-booking-api's shape: after a release, the
	// pool's checkouts fail in eu-central-1, which took eu-west-1's
	// requests over.
	poolFails := errorTraces(`{"service":"shop-api","trace_id":"t1","span_id":"p1","parent_span_id":"s1","kind":"Internal","error":true,"db.client.connection.pool.name":"hikari","status_message":"Connection is not available"}`,
		`{"service":"shop-api","trace_id":"t1","span_id":"s1","kind":"Server","error":true,"http.response.status_code":500,"status_message":"Connection is not available"}`)
	regions := func(westSince float64) contracts.Facts {
		return contracts.Facts{RegionTraffic: []contracts.RegionTraffic{{Region: "eu-central-1", BaselinePerMin: 7.9, PerMin: 17.9, Ratio: 2.27},
			{Region: "eu-west-1", BaselinePerMin: 10.9, PerMin: westSince, Ratio: westSince / 10.9}}}
	}
	// kw10-trap-noisy-node-fleet-api's shape: after a release, the pool's
	// checkouts fail on one node of three, the same version clean on the
	// others.
	nodes := func(otherErrors int64) contracts.Facts {
		return contracts.Facts{Release: &contracts.ReleaseErrors{Version: "v5", FirstSeen: markerAt, HistoryMinutes: 90, Requests: 600, Errors: 40 + 2*otherErrors},
			NodeTraffic: []contracts.NodeTraffic{{Node: "node-a", Version: "v5", Requests: 200, Errors: 40},
				{Node: "node-b", Version: "v5", Requests: 200, Errors: otherErrors}, {Node: "node-c", Version: "v5", Requests: 200, Errors: otherErrors},
				{Node: "node-b", Version: "v4", Requests: 30, Errors: 9}}}
	}
	kbSearch := ev("lg", contracts.ToolErrorLogs, contracts.Facts{}, `"kb search returned no article above the threshold"`)
	tests := []featureCase{
		{"after a release, one region's requests moved onto the other, whose pool ran dry", []loop.Evidence{overview(regions(0)), marker, poolFails},
			"traffic_surge", rules.FeatRegionShift},
		{"after a release, both regions kept their requests, the pool ran dry", []loop.Evidence{overview(regions(10.2)), marker, poolFails},
			"db_pool_exhaustion", rules.FeatPool},
		{"after a release, the pool fails on one node, the same version clean on the others", []loop.Evidence{overview(nodes(0)), marker, poolFails},
			"resource_saturation", rules.FeatNodeConfined},
		{"after a release, the pool fails on every node", []loop.Evidence{overview(nodes(30)), marker, poolFails},
			"db_pool_exhaustion", rules.FeatPool},
		{"after a release, the versions beside it fail as much in their own code", []loop.Evidence{overview(versions(51, 10, 0)), marker, ownFault},
			"dependency_outage", rules.FeatOtherVersionsFail},
		{"after a release, the versions beside it serve clean", []loop.Evidence{overview(versions(51, 0, 0)), marker, ownFault},
			"bad_release", rules.FeatException},
		{"after a release, too few requests of the versions beside it", []loop.Evidence{overview(versions(7, 3, 0)), marker, ownFault},
			"bad_release", rules.FeatException},
		{"after a release, the versions beside it fail on messages redelivered", []loop.Evidence{overview(versions(51, 10, 600)), marker, ownFault},
			"bad_release", rules.FeatException},
		{"after a release, every version's calls to a peer fail, resent", []loop.Evidence{overview(versions(51, 10, 0)), marker, peerFails},
			"retry_storm", rules.FeatResend},
		{"a configuration change logged at the onset, minutes after the release", []loop.Evidence{overview(configLog(onset.Truncate(time.Minute))), marker, ownFault},
			"config_regression", rules.FeatConfigLogged},
		{"a configuration change logged in the release's first minute", []loop.Evidence{overview(configLog(nearAt.Truncate(time.Minute))), nearMarker, ownFault},
			"bad_release", rules.FeatException},
		{"a configuration change logged long before the onset", []loop.Evidence{overview(configLog(onset.Add(-10 * time.Minute))), marker, ownFault},
			"bad_release", rules.FeatException},
		{"no release: a configuration change logged at the onset", []loop.Evidence{overview(configLog(onset.Truncate(time.Minute))), noMarker, ownFault},
			"config_regression", rules.FeatConfigLogged},
		{"no release: retries per request rose inside the span that slowed", append([]loop.Evidence{ev("ov", contracts.ToolServiceOverview, retries(200), ""), noMarker}, inSpan...),
			"retry_storm", ""},
		{"no release: the span slowed, its retries as before", append([]loop.Evidence{ev("ov", contracts.ToolServiceOverview, retries(1.1), ""), noMarker}, inSpan...),
			"retrieval_latency", rules.FeatChildSlow},
		{"no marker: the model provider slowed while the answers grew, since a release", append([]loop.Evidence{provider(longer), noMarker, kbSearch}, modelShape...),
			"prompt_regression", rules.FeatAnswerShift},
		{"no marker: the model provider slowed, the answers as before", append([]loop.Evidence{provider(nil), noMarker, kbSearch}, modelShape...),
			"retrieval_latency", rules.FeatSlowDependency},
	}
	runFeatureCases(t, tests, "ov")
}
