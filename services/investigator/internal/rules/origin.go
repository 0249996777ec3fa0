package rules

import (
	"slices"
	"strings"
	"time"

	"agentk/contracts"
	"agentk/services/investigator/internal/loop"
)

// OriginConfidence is the confidence of the claim about the origin of the
// alerted service's failures.
const OriginConfidence = 0.75

// OriginClaim is the deployment-class claim about the service where the
// alerted service's failures begin (bad_release, or config_regression when
// they begin in the origin's own client span: originClientKind) (its overview's Facts.Origin, DESIGN rule
// 17), when that service's own marker evidence shows a release of it within
// MarkerWindow before its own onset (its overview's, else the origin's). The
// claim names the origin in Service and cites the origin's own overview and
// marker query, and the alerted overview that names it. ok is false when no
// other service is the origin or no release of it precedes its onset.
func OriginClaim(service string, evidence []loop.Evidence) (c contracts.Claim, ok bool) {
	origin, alertedID := alertedOrigin(service, evidence)
	if origin == nil {
		return c, false
	}
	s := origin.Service
	onset, ids := originOnset(s, origin.Onset, evidence)
	if onset == nil {
		return c, false
	}
	markerIDs, deploy := originDeploys(s, *onset, evidence)
	if !deploy {
		return c, false
	}
	ids = append(ids, markerIDs...)
	class, why := "bad_release", ": a release of "+s+" broke it"
	if strings.HasSuffix(origin.Operation, originClientKind) {
		class, why = "config_regression", ", in its own calls out: the release changed what "+s+" calls or how"
	}
	return contracts.Claim{Class: class, Service: s, Confidence: OriginConfidence,
		Statement:   "the failures of " + service + " begin in its callee " + s + ", and a deployment of " + s + " precedes " + s + "'s own onset" + why,
		EvidenceIDs: compactIDs(append(ids, alertedID))}, true
}

// originClientKind ends the origin's operation ("name KIND") when the
// failures begin in a client span of the origin: its call out to a host
// the traces do not reach (a configured upstream, a database, a third
// party). After the origin's own release that is a configuration the
// release changed (an address, a credential, a timeout), not a fault of
// its code, which begins in its server or internal spans.
const originClientKind = " Client"

// alertedOrigin returns the failure origin that service's first overview
// naming another service gives, and that overview's id; nil if none does.
func alertedOrigin(service string, evidence []loop.Evidence) (*contracts.FailureOrigin, string) {
	for _, e := range evidence {
		if e.Tool == contracts.ToolServiceOverview && (e.Service == service || e.Service == "") && e.Facts.Origin != nil && e.Facts.Origin.Service != service {
			return e.Facts.Origin, e.ID
		}
	}
	return nil, ""
}

// originOnset returns the origin service s's onset (its own overviews' last,
// else the origin's, onset) and the ids of s's own overviews.
func originOnset(s string, onset *time.Time, evidence []loop.Evidence) (*time.Time, []string) {
	var ids []string
	for _, e := range evidence {
		if e.Tool == contracts.ToolServiceOverview && e.Service == s {
			ids = append(ids, e.ID)
			if e.Facts.Onset != nil {
				onset = e.Facts.Onset
			}
		}
	}
	return onset, ids
}

// originDeploys returns the ids of s's own marker queries that show a
// deployment of s within MarkerWindow before onset; deploy is true if any does.
func originDeploys(s string, onset time.Time, evidence []loop.Evidence) (ids []string, deploy bool) {
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
	return ids, deploy
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
