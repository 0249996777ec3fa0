package policy_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"agentk/contracts"
	"agentk/services/gate/internal/policy"
)

// TestRegionShiftDenies: a deployment-class diagnosis is denied when one
// region lost its requests at the onset and another took them over (a
// failover: e2e/incidents-heldout9's region-failover trap). Red with
// gate.region_shift.
func TestRegionShiftDenies(t *testing.T) {
	rt := func(region string, base, since float64) contracts.RegionTraffic {
		return contracts.RegionTraffic{Region: region, BaselinePerMin: base, PerMin: since, Ratio: since / base}
	}
	for _, tc := range []struct {
		name    string
		class   string
		regions []contracts.RegionTraffic
		allow   bool
	}{
		{"eu-west-1 fails over to eu-central-1", "bad_release", []contracts.RegionTraffic{rt("eu-central-1", 7.5, 18.1), rt("eu-west-1", 11.2, 0.4)}, false},
		{"on a configuration release", "config_regression", []contracts.RegionTraffic{rt("eu-central-1", 7.5, 18.1), rt("eu-west-1", 11.2, 0.4)}, false},
		{"half of a region moved to two others", "retry_storm", []contracts.RegionTraffic{rt("a", 10, 5), rt("b", 5, 7.6), rt("c", 5, 7.5)}, false},
		{"both regions steady", "bad_release", []contracts.RegionTraffic{rt("eu-central-1", 7.5, 7.9), rt("eu-west-1", 11.2, 10.8)}, true},
		{"a region lost traffic that went nowhere", "bad_release", []contracts.RegionTraffic{rt("eu-central-1", 7.5, 8.1), rt("eu-west-1", 11.2, 0.4)}, true},
		{"a region rose without another losing", "bad_release", []contracts.RegionTraffic{rt("eu-central-1", 7.5, 15), rt("eu-west-1", 11.2, 9)}, true},
		{"a region too thin to say", "bad_release", []contracts.RegionTraffic{rt("eu-central-1", 20, 31), rt("eu-west-1", 1.5, 0)}, true},
		{"one region", "bad_release", []contracts.RegionTraffic{rt("eu-west-1", 11.2, 0.4)}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := allowing()
			in.Review.Best.Class, in.Review.Kept[0].Class = tc.class, tc.class
			in.Evidence[0].Facts.RegionTraffic = tc.regions
			d := policy.Evaluate(in)
			dep := d.Checks[4]
			require.Equal(t, contracts.CheckDeploymentRelated, dep.Name)
			if tc.allow {
				require.Equal(t, contracts.VerdictAllow, d.Verdict, "%v", d.Checks)
				return
			}
			require.Equal(t, []string{contracts.CheckDeploymentRelated}, d.FailedChecks, "%v", d.Checks)
			require.Contains(t, dep.Reason, "moved between regions at the onset")
			require.Contains(t, dep.Reason, "a region failing over concentrated the load")
		})
	}
	in := allowing()
	in.Evidence[0].Facts.RegionTraffic = []contracts.RegionTraffic{rt("eu-central-1", 7.5, 18.1), rt("eu-west-1", 11.2, 0.4)}
	require.Contains(t, policy.Evaluate(in).Checks[4].Reason, "eu-west-1 served 11.2 a minute before it and 0.4 since, eu-central-1 7.5 and 18.1")
}
