package rules_test

import (
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
