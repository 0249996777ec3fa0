package policy_test

import (
	"strings"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/services/gate/internal/policy"

	"github.com/stretchr/testify/require"
)

// deploymentCheck returns the decision's deployment_related result.
func deploymentCheck(t *testing.T, d contracts.DecisionV1) contracts.CheckResult {
	t.Helper()
	for _, c := range d.Checks {
		if c.Name == contracts.CheckDeploymentRelated {
			return c
		}
	}
	t.Fatalf("no %s check in %+v", contracts.CheckDeploymentRelated, d.Checks)
	return contracts.CheckResult{}
}

// TestMarkerLedgerAgreement: a deployment marker counts only when the
// release ledger (what Docker saw start) agrees with it on version and time
// (DESIGN.md rule 15). The false markers of issue 31 deny; a false marker
// beside the real one neither denies nor is the one that counts. Red with
// the corroboration switched off (mutant gate.marker_ledger_agrees): the
// forged, re-emitted and leaked markers are then allowed.
func TestMarkerLedgerAgreement(t *testing.T) {
	t.Parallel()
	m := func(version string, at time.Time) contracts.DeploymentMarker {
		return contracts.DeploymentMarker{Service: svc, Version: version, At: at, TraceID: "t-" + at.Format("1504")}
	}
	daysAgo := tMarker.Add(-9 * 24 * time.Hour)
	cases := []struct {
		name  string
		setup func(*policy.Input)
		allow bool
		// in is a text the reason (deny) or the contradicted markers (allow) must hold.
		in     string
		marker string // the marker that counts (allow)
	}{
		{"real marker at Docker's start", func(*policy.Input) {}, true, "", "shop-api@v2@2026-11-30T10:02:00Z"},
		{"forged marker of the running version; Docker started it days earlier", func(in *policy.Input) {
			markers(in, m("v2", tStarts.Add(-11*time.Minute)))
			started(in, daysAgo)
		}, false, `marker says "v2" started 2026-11-30T09:59:00Z; the ledger (Docker) started "v2" on 2026-11-21T10:02:00Z`, ""},
		{"forged marker later than the real one: the real one counts", func(in *policy.Input) {
			markers(in, m("v2", tOnset.Add(-13*time.Minute)), m("v2", tOnset.Add(-time.Minute)))
			started(in, tOnset.Add(-13*time.Minute))
		}, true, `marker says "v2" started 2026-11-30T10:04:00Z; the ledger (Docker) started "v2" on 2026-11-30T09:52:00Z, 12m0s apart`, "shop-api@v2@2026-11-30T09:52:00Z"},
		{"a crash-looping old release re-emits its marker on every start", func(in *policy.Input) {
			markers(in, m("v2", tOnset.Add(-14*time.Minute)), m("v2", tOnset.Add(-9*time.Minute)), m("v2", tOnset.Add(-4*time.Minute)), m("v2", tOnset.Add(-1*time.Minute)))
			started(in, tMarker.Add(-26*time.Hour))
		}, false, "(and 3 more, in markers_contradicted)", ""},
		{"a test suite's burst of markers of several versions", func(in *policy.Input) {
			markers(in, m("v7", tOnset.Add(-12*time.Minute)), m("v2", tOnset.Add(-12*time.Minute+2*time.Second)), m("v1", tOnset.Add(-12*time.Minute+3*time.Second)), m("0.0.0-test", tOnset.Add(-12*time.Minute+5*time.Second)))
			started(in, daysAgo)
		}, false, `the ledger (Docker) runs "v2"`, ""},
		{"another environment's deploy of a newer version beside the real marker", func(in *policy.Input) {
			markers(in, m("v2", tMarker), m("v3", tMarker.Add(2*time.Minute)))
		}, true, `marker says "v3" started 2026-11-30T10:04:00Z; the ledger (Docker) runs "v2"`, "shop-api@v2@2026-11-30T10:02:00Z"},
		{"a flood of forged markers: ten are named, the rest counted", func(in *policy.Input) {
			var ms []contracts.DeploymentMarker
			for i := range 25 {
				ms = append(ms, m("v2", tOnset.Add(-time.Duration(25-i)*time.Minute)))
			}
			markers(in, ms...)
			started(in, daysAgo)
		}, false, "(and 24 more, in markers_contradicted)", ""},
		{"the ledger's running release has no start time", func(in *policy.Input) {
			started(in, time.Time{})
		}, false, `no start time for the running release "v2"`, ""},
		{"marker 4m after Docker's start: within the tolerance", func(in *policy.Input) {
			started(in, tMarker.Add(-4*time.Minute))
		}, true, "", "shop-api@v2@2026-11-30T10:02:00Z"},
		{"marker 5m1s after Docker's start: outside the tolerance", func(in *policy.Input) {
			started(in, tMarker.Add(-5*time.Minute-time.Second))
		}, false, "5m1s apart (tolerance 5m0s)", ""},
		{"Docker started the release after the onset the marker precedes", func(in *policy.Input) {
			markers(in, m("v2", tOnset.Add(-2*time.Minute)))
			started(in, tOnset.Add(time.Minute))
		}, false, "after the onset 2026-11-30T10:05:00Z", ""},
		{"a wider tolerance set in the configuration", func(in *policy.Input) {
			in.Config.MarkerTolerance = 20 * time.Minute
			started(in, tMarker.Add(-15*time.Minute))
		}, true, "", "shop-api@v2@2026-11-30T10:02:00Z"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := allowing()
			tc.setup(&in)
			d := policy.Evaluate(in)
			c := deploymentCheck(t, d)
			require.LessOrEqual(t, strings.Count(c.Inputs["markers_contradicted"], "marker says"), 10)
			if !tc.allow {
				require.Equal(t, contracts.VerdictDeny, d.Verdict, "%+v", c)
				require.Equal(t, []string{contracts.CheckDeploymentRelated}, d.FailedChecks)
				require.Contains(t, c.Reason, tc.in)
				require.NotEmpty(t, c.Inputs["current_version"])
				return
			}
			require.Equal(t, contracts.VerdictAllow, d.Verdict, "%+v", c)
			require.Equal(t, tc.marker, c.Inputs["marker"])
			require.Contains(t, c.Inputs["markers_contradicted"], tc.in)
			require.Equal(t, in.Config.MarkerTolerance.String(), c.Inputs["marker_tolerance"])
		})
	}
}
