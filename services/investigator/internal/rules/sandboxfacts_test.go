package rules_test

import (
	"strconv"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/services/investigator/internal/loop"
	"agentk/services/investigator/internal/loop/looptest"
	"agentk/services/investigator/internal/rules"

	"github.com/stretchr/testify/require"
)

// TestFactsWhereTheSpansNameTooLittle covers the readings of branch
// h46rules (issue 35, e2e/incidents-heldout4 and heldout5): a release that
// changes only its version's build metadata, a pool the sandbox found dry, a
// peer the sandbox found failing with its own status, a marker of another
// environment, a publish a broker refused, and a kept-span rise after a
// release that changed what each request does. Each case has a twin that
// differs in the one fact and must not be diagnosed the same.
func TestFactsWhereTheSpansNameTooLittle(t *testing.T) {
	t.Parallel()
	onset := looptest.Base.Add(-15 * time.Minute)
	overview := func(rate float64, f contracts.Facts) loop.Evidence {
		f.Onset, f.ErrorRate, f.P95Ms = &onset, f64(rate), f64(200)
		return ev("ov", contracts.ToolServiceOverview, f, "")
	}
	marker := func(m contracts.DeploymentMarker, envs ...string) loop.Evidence {
		m.Service, m.At = "shop-api", onset.Add(-5*time.Minute)
		return ev("mk", contracts.ToolDeploymentMarkers, contracts.Facts{MarkerQuery: true, DeploymentMarkers: []contracts.DeploymentMarker{m}, ServiceEnvironments: envs}, "")
	}
	release := marker(contracts.DeploymentMarker{Version: "5.3.0", PreviousVersion: "5.2.4"})
	noMarker := ev("mk", contracts.ToolDeploymentMarkers, contracts.Facts{MarkerQuery: true}, "")
	ownFault := errorTraces(`{"trace_id":"t1","span_id":"a","parent_span_id":"","service":"shop-api","name":"GET /x","kind":"Server","error":true}`)
	pool := func(failed, baseline int64) *contracts.PoolWaits {
		return &contracts.PoolWaits{Spans: 40, Failed: failed, BaselineSpans: 400, BaselineFailed: baseline, EntryErrors: 20}
	}
	publish := func(kind string) loop.Evidence {
		return errorTraces(`{"trace_id":"t1","span_id":"a","parent_span_id":"","service":"shop-api","name":"POST /buy","kind":"Server","error":true}`,
			`{"trace_id":"t1","span_id":"b","parent_span_id":"a","service":"shop-api","name":"publish orders","kind":"`+kind+`","error":true,"server.address":"broker.internal"}`)
	}
	surge := func(f contracts.Facts) contracts.Facts { f.TrafficRatio = f64(4); return f }
	retries := &contracts.RetryRise{Source: "attribute", Key: "http.request.resend_count", Since: 3, Baseline: 0.1, Ratio: 30, Events: 90}
	answers := []contracts.QualityShift{{Attribute: "gen_ai.usage.output_tokens", At: onset, Before: 120, Since: 410, Statistic: 900}}
	tests := []struct {
		name     string
		evidence []loop.Evidence
		class    string
	}{
		{"a release of the same version rebuilt with other settings", []loop.Evidence{overview(0.3, contracts.Facts{}), marker(contracts.DeploymentMarker{Version: "5.2.4+cfg.38", PreviousVersion: "5.2.4+cfg.37"}), ownFault}, "config_regression"},
		{"a release of a new version", []loop.Evidence{overview(0.3, contracts.Facts{}), release, ownFault}, "bad_release"},
		{"a tag rebuilt with other settings", []loop.Evidence{overview(0.3, contracts.Facts{}), marker(contracts.DeploymentMarker{Version: "4.11.0_cfg.2", PreviousVersion: "4.11.0"}), ownFault}, "config_regression"},
		{"versions written with underscores are no build metadata", []loop.Evidence{overview(0.3, contracts.Facts{}), marker(contracts.DeploymentMarker{Version: "v1_2_3", PreviousVersion: "v1_2_2"}), ownFault}, "bad_release"},
		{"a pool the sandbox found dry", []loop.Evidence{overview(0.3, contracts.Facts{ConnectionPool: pool(12, 0)}), release, ownFault}, "db_pool_exhaustion"},
		{"a pool that fails as often as in its baseline", []loop.Evidence{overview(0.3, contracts.Facts{ConnectionPool: pool(1, 10)}), release, ownFault}, "bad_release"},
		{"a peer failing with its own status, no release", []loop.Evidence{overview(0.3, contracts.Facts{FailingDependencies: []string{"clearing.example"}, DependencyFaults: []string{"clearing.example"}}), noMarker, ownFault}, "dependency_outage"},
		{"a peer failing with its own status, a release coinciding", []loop.Evidence{overview(0.3, contracts.Facts{FailingDependencies: []string{"clearing.example"}, DependencyFaults: []string{"clearing.example"}}), release, ownFault}, "dependency_outage"},
		{"a peer failing with the caller's own errors, no release", []loop.Evidence{overview(0.3, contracts.Facts{FailingDependencies: []string{"clearing.example"}}), noMarker, ownFault}, contracts.ClassUnknown},
		{"a marker of an environment the service does not run in", []loop.Evidence{overview(0.3, contracts.Facts{}), marker(contracts.DeploymentMarker{Version: "5.3.0", PreviousVersion: "5.2.4", Environment: "staging"}, "production"), ownFault}, contracts.ClassUnknown},
		{"a marker of the service's own environment", []loop.Evidence{overview(0.3, contracts.Facts{}), marker(contracts.DeploymentMarker{Version: "5.3.0", PreviousVersion: "5.2.4", Environment: "production"}, "production"), ownFault}, "bad_release"},
		{"a publish the broker refused", []loop.Evidence{overview(0.3, contracts.Facts{}), release, publish("Producer")}, "dependency_outage"},
		{"an internal span named like a publish", []loop.Evidence{overview(0.3, contracts.Facts{}), release, publish("Internal")}, "bad_release"},
		{"kept spans rose after a release that multiplied each request's retries", []loop.Evidence{overview(0.3, surge(contracts.Facts{Retries: retries})), release, ownFault}, "retry_storm"},
		{"kept spans rose with each request's retries, no release", []loop.Evidence{overview(0.3, surge(contracts.Facts{Retries: retries})), noMarker, ownFault}, "traffic_surge"},
		{"kept spans rose after a release that shifted the model's answers", []loop.Evidence{overview(0.01, surge(contracts.Facts{QualityShifts: answers})), release}, "prompt_regression"},
		{"kept spans rose with the answers shifted, no release", []loop.Evidence{overview(0.01, surge(contracts.Facts{QualityShifts: answers})), noMarker}, "traffic_surge"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			claims := rules.Diagnose(rules.Observe("shop-api", tc.evidence))
			require.NotEmpty(t, claims)
			require.Equal(t, tc.class, claims[0].Class, "%+v", claims)
		})
	}
}

// TestWhatTheFailingCallsSay covers the readings of branch h47rules (issue
// 35, e2e/incidents-heldout6 and heldout7): a database that slowed or failed
// by itself is not refusing a release's settings, a peer's own failure text
// is no config signal, a peer that answered with its own status or refused
// the connection failed (its calls are no timeouts of a slowdown), and one
// fault repeated in the service's internal spans when no server span fails.
// Each case has a twin that differs in the one fact and must not be
// diagnosed the same; every first case read otherwise on main's rules.
func TestWhatTheFailingCallsSay(t *testing.T) {
	t.Parallel()
	onset := looptest.Base.Add(-15 * time.Minute)
	overview := func(rate float64, f contracts.Facts) loop.Evidence {
		f.Onset, f.ErrorRate, f.P95Ms = &onset, f64(rate), f64(200)
		return ev("ov", contracts.ToolServiceOverview, f, "")
	}
	release := ev("mk", contracts.ToolDeploymentMarkers, contracts.Facts{MarkerQuery: true, DeploymentMarkers: []contracts.DeploymentMarker{
		{Service: "shop-api", Version: "5.3.0", PreviousVersion: "5.2.4", At: onset.Add(-3 * time.Minute)}}}, "")
	noMarker := ev("mk", contracts.ToolDeploymentMarkers, contracts.Facts{MarkerQuery: true}, "")
	calls := func(kind, peerAttr, msg string) loop.Evidence {
		var rows []string
		for i := range 4 {
			id := strconv.Itoa(i)
			rows = append(rows,
				`{"trace_id":"t`+id+`","span_id":"s`+id+`","parent_span_id":"","service":"shop-api","name":"GET /x","kind":"Server","error":true,"http.response.status_code":503,"status_message":"request failed"}`,
				`{"trace_id":"t`+id+`","span_id":"c`+id+`","parent_span_id":"s`+id+`","service":"shop-api","name":"GET","kind":"`+kind+`","error":true,`+peerAttr+`,"status_message":"`+msg+`"}`)
		}
		return errorTraces(rows...)
	}
	cache := `"db.system":"redis","server.address":"cache.internal"`
	table := `"server.address":"table.internal"`
	ownFault := func(kind string, msgs ...string) loop.Evidence {
		var rows []string
		for i, m := range msgs {
			id := strconv.Itoa(i)
			rows = append(rows, `{"trace_id":"t`+id+`","span_id":"s`+id+`","parent_span_id":"p`+id+`","service":"shop-api","name":"resolve rail","kind":"`+kind+`","error":true,"status_message":"`+m+`"}`)
		}
		return errorTraces(rows...)
	}
	byKind := []string{"name", "kind_string"}
	shape := func(serverBefore, serverAfter, childBefore, childAfter string) []loop.Evidence {
		return []loop.Evidence{
			agg("bf", contracts.ToolArgs{Aggregation: "p95", GroupBy: byKind, To: &onset}, `{"kind_string":"Server","name":"GET /x","p95_ms":`+serverBefore+`}`, `{"kind_string":"Client","name":"GET","p95_ms":`+childBefore+`}`),
			agg("af", contracts.ToolArgs{Aggregation: "p95", GroupBy: byKind, From: &onset}, `{"kind_string":"Server","name":"GET /x","p95_ms":`+serverAfter+`}`, `{"kind_string":"Client","name":"GET","p95_ms":`+childAfter+`}`),
		}
	}
	faults := contracts.Facts{FailingDependencies: []string{"table.internal"}, DependencyFaults: []string{"table.internal"}}
	timedOut := faults
	timedOut.TimedOutDependencies = []string{"table.internal"}
	with := func(evs ...any) []loop.Evidence {
		var out []loop.Evidence
		for _, e := range evs {
			switch v := e.(type) {
			case loop.Evidence:
				out = append(out, v)
			case []loop.Evidence:
				out = append(out, v...)
			}
		}
		return out
	}
	const throttled = "The level of configured provisioned throughput for the table was exceeded"
	tests := []struct {
		name     string
		evidence []loop.Evidence
		class    string
	}{
		{"database calls timing out, the database span dominating the growth", with(overview(0.3, contracts.Facts{}), release, calls("Client", cache, "Timeout performing GET"), shape("20", "5010", "2", "5000")), "dependency_outage"},
		{"database calls failing at once, nothing slowed", with(overview(0.3, contracts.Facts{}), release, calls("Client", cache, "Timeout performing GET"), shape("20", "21", "2", "2")), "config_regression"},
		{"database calls failing, the sandbox found the database slower", with(overview(0.3, contracts.Facts{SlowDependencies: []string{"cache.internal"}}), release, calls("Client", cache, "Timeout performing GET")), "dependency_outage"},
		{"database calls the database answered with its own failure", with(overview(0.3, contracts.Facts{FailingDependencies: []string{"cache.internal"}, DependencyFaults: []string{"cache.internal"}}), release, calls("Client", cache, "LOADING Redis is loading the dataset in memory")), "dependency_outage"},
		{"database calls the caller failed, nothing slowed", with(overview(0.3, contracts.Facts{FailingDependencies: []string{"cache.internal"}}), release, calls("Client", cache, "WRONGPASS invalid username-password pair")), "config_regression"},
		{"a peer's own failure in words of configuration", with(overview(0.3, faults), release, calls("Client", table, throttled)), "dependency_outage"},
		{"words of configuration, the peer not failing by itself", with(overview(0.3, contracts.Facts{FailingDependencies: []string{"table.internal"}}), release, calls("Client", table, throttled)), "config_regression"},
		{"a few calls the peer answered with its own status, a dependency slowed", with(overview(0.03, faults), release, ownFault("Server", "SlowDown", "SlowDown", "SlowDown"), shape("40", "200", "30", "180")), "dependency_outage"},
		{"a few calls that timed out, a dependency slowed", with(overview(0.03, timedOut), release, ownFault("Server", "SlowDown", "SlowDown", "SlowDown"), shape("40", "200", "30", "180")), "bad_release"},
		{"a few calls refused, a dependency slowed a little, no release", with(overview(0.014, contracts.Facts{}), noMarker, calls("Client", cache, "dial tcp 10.0.3.14:5432: connect: connection refused"), shape("5", "8", "2", "5")), "dependency_outage"},
		{"a few calls timed out, a dependency slowed a little, no release", with(overview(0.014, contracts.Facts{}), noMarker, calls("Client", cache, "context deadline exceeded"), shape("5", "8", "2", "5")), "retrieval_latency"},
		{"one fault repeated in internal spans, no server span failing", with(overview(0.03, contracts.Facts{}), release, ownFault("Internal", "Cannot read properties of undefined", "Cannot read properties of undefined", "Cannot read properties of undefined")), "bad_release"},
		{"assorted faults in internal spans, no server span failing", with(overview(0.03, contracts.Facts{}), release, ownFault("Internal", "a", "b", "c")), contracts.ClassUnknown},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			claims := rules.Diagnose(rules.Observe("shop-api", tc.evidence))
			require.NotEmpty(t, claims)
			require.Equal(t, tc.class, claims[0].Class, "%+v", claims)
		})
	}
}
