package policy

import (
	"sort"
	"strconv"
	"strings"

	"agentk/contracts"
)

// alternatives returns a reason for every sign in this service's evidence
// facts that something other than its own release explains the regression:
// other services that regressed with it (a shared dependency), or inbound
// traffic far above its baseline (load). It records what it saw in inputs.
func alternatives(in Input, svc string, ev []contracts.EvidenceV1, inputs map[string]string) []string {
	co := map[string]bool{}
	ratio, haveRatio := 0.0, false
	for _, e := range ev {
		if e.Service != svc {
			continue
		}
		for _, s := range e.Facts.CoRegressed {
			if s != svc {
				co[s] = true
			}
		}
		if r := e.Facts.TrafficRatio; r != nil && (!haveRatio || *r > ratio) {
			ratio, haveRatio = *r, true
		}
	}
	var reasons []string
	if len(co) > 0 {
		names := make([]string, 0, len(co))
		for s := range co {
			names = append(names, s)
		}
		sort.Strings(names)
		inputs["co_regressed"] = strings.Join(names, ",")
		reasons = append(reasons, strings.Join(names, ", ")+" regressed at the same time as "+svc+": a shared cause that rolling back "+svc+" alone would not fix")
	}
	if haveRatio {
		inputs["traffic_ratio"] = strconv.FormatFloat(ratio, 'f', -1, 64)
		if limit := in.Config.TrafficSurgeRatio; limit > 0 && ratio >= limit {
			reasons = append(reasons, "inbound traffic is "+strconv.FormatFloat(ratio, 'f', 2, 64)+"x its baseline since the onset: load, not a release, explains the regression")
		}
	}
	return reasons
}
