package rules

import (
	"slices"

	"agentk/contracts"
	"agentk/services/investigator/internal/loop"
)

// OriginConfidence is the confidence of the claim about the origin of the
// alerted service's failures.
const OriginConfidence = 0.75

// OriginClaim is the deployment-class claim about the service where the
// alerted service's failures begin (its overview's Facts.Origin, DESIGN rule
// 17), when that service's own marker evidence shows a release of it within
// MarkerWindow before its own onset (its overview's, else the origin's). The
// claim names the origin in Service and cites the origin's own overview and
// marker query, and the alerted overview that names it. ok is false when no
// other service is the origin or no release of it precedes its onset.
func OriginClaim(service string, evidence []loop.Evidence) (c contracts.Claim, ok bool) {
	var origin *contracts.FailureOrigin
	var alertedID string
	for _, e := range evidence {
		if e.Tool == contracts.ToolServiceOverview && (e.Service == service || e.Service == "") && e.Facts.Origin != nil && e.Facts.Origin.Service != service {
			origin, alertedID = e.Facts.Origin, e.ID
			break
		}
	}
	if origin == nil {
		return c, false
	}
	s := origin.Service
	onset := origin.Onset
	var ids []string
	for _, e := range evidence {
		if e.Tool == contracts.ToolServiceOverview && e.Service == s {
			ids = append(ids, e.ID)
			if e.Facts.Onset != nil {
				onset = e.Facts.Onset
			}
		}
	}
	if onset == nil {
		return c, false
	}
	deploy := false
	for _, e := range evidence {
		if e.Tool != contracts.ToolDeploymentMarkers || e.Service != s || !e.Facts.MarkerQuery {
			continue
		}
		if slices.ContainsFunc(e.Facts.DeploymentMarkers, func(m contracts.DeploymentMarker) bool {
			return m.Service == s && m.At.Before(onset.Add(OnsetBucket)) && onset.Sub(m.At) <= MarkerWindow
		}) {
			deploy = true
			ids = append(ids, e.ID)
		}
	}
	if !deploy {
		return c, false
	}
	return contracts.Claim{Class: "bad_release", Service: s, Confidence: OriginConfidence,
		Statement:   "the failures of " + service + " begin in its callee " + s + ", and a deployment of " + s + " precedes " + s + "'s own onset: a release of " + s + " broke it",
		EvidenceIDs: compactIDs(append(ids, alertedID))}, true
}

// WithOrigin puts the origin's claim (OriginClaim), when there is one,
// before the claims about the alerted service, which become secondary (at
// most MaxClaims).
func WithOrigin(service string, evidence []loop.Evidence, claims []contracts.Claim) []contracts.Claim {
	origin, ok := OriginClaim(service, evidence)
	if !ok {
		return claims
	}
	out := []contracts.Claim{origin}
	for _, c := range claims {
		if len(out) == MaxClaims {
			break
		}
		if c.Class == contracts.ClassUnknown {
			continue
		}
		c.Confidence = min(c.Confidence, origin.Confidence) * 0.6
		out = append(out, c)
	}
	return out
}
