package tools

import (
	"strings"

	"agentk/contracts"
	"agentk/platform/mutant"
	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"
)

// regionTraffic is each region's entry spans a minute on both sides of the
// onset (facts.RegionTraffic); nil with one region.
func regionTraffic(resp signoz.Response, on Onset) ([]contracts.RegionTraffic, error) {
	if mutant.Off(mutant.SandboxRegionTraffic) {
		return nil, nil
	}
	rs, err := facts.RegionTraffic(resp, on.BaselineFrom, *on.At)
	return rs, badResponse(err)
}

// regionLine says each region's traffic since the onset over its baseline,
// for the model and the human.
func regionLine(rs []contracts.RegionTraffic) string {
	parts := make([]string, 0, len(rs))
	for _, r := range rs {
		parts = append(parts, r.Region+" "+fmtF(r.BaselinePerMin)+" -> "+fmtF(r.PerMin)+" (x"+fmtF(r.Ratio)+")")
	}
	return "entry spans a minute by region (cloud.region), baseline -> since the onset: " + strings.Join(parts, ", ")
}
