package policy_test

import (
	"testing"
	"time"

	"agentk/contracts"
	"agentk/services/gate/internal/policy"

	"github.com/stretchr/testify/require"
)

// TestMarkerFromAnotherEnvironment: a deployment.marker of the service's
// copy in another environment (the same service.name in perf, staging, a
// canary region) is not this service's deployment, even where the release
// ledger corroborates its version and time: it must never buy a rollback.
// The environment the alert is about comes from the signed alert's label and
// from the service's spans (contracts.Facts.ServiceEnvironments). Red with
// mutant gate.marker_environment: every deny below is allowed.
func TestMarkerFromAnotherEnvironment(t *testing.T) {
	t.Parallel()
	at := func(env string, when time.Time) contracts.DeploymentMarker {
		return contracts.DeploymentMarker{Service: svc, Version: "v2", PreviousVersion: "v1", At: when, Environment: env}
	}
	spans := func(in *policy.Input, envs ...string) { in.Evidence[1].Facts.ServiceEnvironments = envs }
	label := func(in *policy.Input, k, v string) { in.Alert.Labels[k] = v }
	cases := []struct {
		name   string
		setup  func(*policy.Input)
		allow  bool
		reason string // deny: in the reason; allow: in markers_rejected ("" for none)
	}{
		{"perf marker, the service's spans run in production", func(in *policy.Input) {
			markers(in, at("perf", tMarker))
			spans(in, "production")
		}, false, "its environment perf is not the one the service's spans run in (production)"},
		{"staging marker, the alert is about production, the spans name none", func(in *policy.Input) {
			markers(in, at("staging", tMarker))
			label(in, "deployment.environment", "production")
		}, false, "its environment staging is not the alert's (production)"},
		{"marker of the spans' environment, the alert's label another", func(in *policy.Input) {
			markers(in, at("eu-canary", tMarker))
			spans(in, "eu-canary")
			label(in, "env", "prod")
		}, false, "is not the alert's (prod)"},
		{"spans in two environments, the alert names none", func(in *policy.Input) {
			markers(in, at("production", tMarker))
			spans(in, "production", "staging")
		}, false, "cannot be told to be the alerted one"},
		{"spans in two environments, the alert names production", func(in *policy.Input) {
			markers(in, at("production", tMarker))
			spans(in, "production", "staging")
			label(in, "deployment.environment.name", "production")
		}, true, ""},
		{"production marker, production spans", func(in *policy.Input) {
			markers(in, at("production", tMarker))
			spans(in, "production")
		}, true, ""},
		{"a perf marker beside the production one: the production one counts", func(in *policy.Input) {
			markers(in, at("production", tMarker), at("perf", tMarker.Add(time.Minute)))
			spans(in, "production")
		}, true, "shop-api@v2@2026-11-30T10:03:00Z is not this service's deployment"},
		{"a marker that names no environment", func(in *policy.Input) {
			markers(in, at("", tMarker))
			spans(in, "production")
			label(in, "env", "production")
		}, true, ""},
		{"nothing names the service's environment", func(in *policy.Input) {
			markers(in, at("perf", tMarker))
		}, true, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := allowing()
			tc.setup(&in)
			d := policy.Evaluate(in)
			c := deploymentCheck(t, d)
			if !tc.allow {
				require.Equal(t, contracts.VerdictDeny, d.Verdict, "%+v", c)
				require.Equal(t, []string{contracts.CheckDeploymentRelated}, d.FailedChecks)
				require.Contains(t, c.Reason, "no deployment.marker span of shop-api lies in the")
				require.Contains(t, c.Inputs["markers_rejected"], tc.reason)
				return
			}
			require.Equal(t, contracts.VerdictAllow, d.Verdict, "%+v", c)
			require.Equal(t, "shop-api@v2@2026-11-30T10:02:00Z", c.Inputs["marker"])
			if tc.reason != "" {
				require.Contains(t, c.Inputs["markers_rejected"], tc.reason)
			}
		})
	}
}
