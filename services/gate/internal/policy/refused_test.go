package policy_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"agentk/contracts"
	"agentk/services/gate/internal/policy"
)

// refusing is the allowing fixture whose evidence names payment as the
// origin of shop-api's failures without counting it among the services
// that regressed with it: the sandbox judged that payment refuses
// shop-api's requests as sent (services/sandbox/internal/facts/refused.go).
// payment's ledger, read for it, shows no release for two days.
func refusing() policy.Input {
	in := allowing()
	in.Evidence[0].Facts.Origin = &contracts.FailureOrigin{Service: origin, Operation: "POST /charge", Signal: "errors",
		Share: 1, Failures: 30, Total: 30, Path: []string{svc, origin}}
	in.Evidence[0].Facts.Downstream = []string{origin}
	in.Origin = policy.OriginState{Service: origin, Ledger: policy.LedgerState{Found: true, Ledger: contracts.ReleaseLedgerV1{
		Project: "shop", Service: origin,
		Releases: []contracts.Release{{Version: "2.1.9", Image: "agentk-demo/payment:2.1.9", DeployedAt: tOnset.Add(-48 * time.Hour)}},
	}}}
	return in
}

// TestRefusedOriginThatReleasedDenies: a callee that refuses the alerted
// service's requests lets the caller's rollback through only when its own
// release ledger shows no release of it from the marker window before the
// onset on: a callee that released a stricter validation refuses the same
// way. An unread or missing ledger fails closed; an origin counted as a
// shared cause is the alternatives' to judge. Kills mutant
// gate.refused_origin_release.
func TestRefusedOriginThatReleasedDenies(t *testing.T) {
	t.Parallel()
	released := func(at time.Time) func(*policy.Input) {
		return func(in *policy.Input) {
			l := &in.Origin.Ledger.Ledger
			l.Releases = append(l.Releases, contracts.Release{Version: "2.2.0", Image: "agentk-demo/payment:2.2.0", DeployedAt: at})
		}
	}
	tests := []struct {
		name   string
		change func(*policy.Input)
		allow  bool
		reason string
	}{
		{"no release of the callee: the caller's rollback", func(*policy.Input) {}, true, ""},
		{"a release of the callee 20 minutes before the onset", released(tOnset.Add(-20 * time.Minute)), false, "payment released 2.2.0"},
		{"a release of the callee after the onset", released(tOnset.Add(2 * time.Minute)), false, "payment released 2.2.0"},
		{"a release of the callee 40 minutes before the onset", released(tOnset.Add(-40 * time.Minute)), true, ""},
		{"the callee's ledger not read", func(in *policy.Input) { in.Origin = policy.OriginState{} }, false, "release ledger was not read"},
		{"the callee's ledger read for another service", func(in *policy.Input) { in.Origin.Service = "ledger" }, false, "release ledger was not read"},
		{"the callee has no ledger", func(in *policy.Input) { in.Origin.Ledger = policy.LedgerState{} }, false, "release ledger was not read"},
		{"the callee's ledger failed verification", func(in *policy.Input) { in.Origin.Ledger.Err = "bad seal" }, false, "release ledger was not read"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := refusing()
			tc.change(&in)
			ds := policy.Decide(in)
			d := ds[0]
			dep := check(d, contracts.CheckDeploymentRelated)
			if tc.allow {
				require.Equal(t, contracts.VerdictAllow, d.Verdict, dep.Reason)
				return
			}
			require.Equal(t, contracts.VerdictDeny, d.Verdict)
			require.False(t, dep.Passed)
			require.True(t, strings.Contains(dep.Reason, tc.reason), dep.Reason)
			require.Equal(t, origin, dep.Inputs["refused_origin"])
		})
	}

	// Counted as a shared cause, the origin is the alternatives' reason,
	// not this one; not named downstream, neither.
	in := refusing()
	in.Evidence[0].Facts.CoRegressed = []string{origin}
	dep := check(policy.Evaluate(in), contracts.CheckDeploymentRelated)
	require.False(t, dep.Passed)
	require.NotContains(t, dep.Inputs, "refused_origin")
	in = refusing()
	in.Evidence[0].Facts.Downstream = nil
	require.NotContains(t, check(policy.Evaluate(in), contracts.CheckDeploymentRelated).Inputs, "refused_origin")
}
