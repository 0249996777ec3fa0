// Package review is the reviewer's core: it keeps a claim only when recorded,
// verified evidence of the same investigation backs it, and says why every
// other claim was dropped. It is pure: the adapter verifies envelopes and
// stamps the clock.
package review

import (
	"fmt"
	"math"
	"net/url"
	"regexp"
	"slices"
	"time"

	"agentk/contracts"
	"agentk/platform/mutant"
)

// Config is the reviewer's configuration.
type Config struct {
	// BaseURL is SigNoz's base URL; every evidence link must be a route under it.
	BaseURL *url.URL
	// Tolerance is the relative difference allowed between a number in a claim
	// and the evidence, on top of the rounding of the digits the claim wrote.
	Tolerance float64
	Catalogue []contracts.FailureClass
}

// Evidence is one evidence envelope of the report, as the adapter found it.
type Evidence struct {
	// ID is the evidence id; for an envelope that did not verify, the id its
	// unverified payload claims (for the reasons only).
	ID string
	// Value is set when the envelope verified.
	Value *contracts.EvidenceV1
	// Err says why the envelope did not verify.
	Err string
}

// Input is one verified report and its evidence.
type Input struct {
	Now      time.Time
	Report   contracts.ReportV1
	Evidence []Evidence
	Config   Config
}

var sha256Hex = regexp.MustCompile(`^[0-9a-f]{64}$`)

// ReviewID is the review's id for an investigation: deterministic, so a
// redelivered report yields the same id and JetStream drops the duplicate.
func ReviewID(investigationID string) string { return "review." + investigationID }

// Review checks every claim of the report and returns the review (without
// the pass-through envelopes, which the adapter copies unchanged).
func Review(in Input) contracts.ReviewV1 {
	r := in.Report
	out := contracts.ReviewV1{
		ReviewID:               ReviewID(r.InvestigationID),
		InvestigationID:        r.InvestigationID,
		IncidentID:             r.IncidentID,
		Service:                r.Service,
		Investigator:           r.Investigator,
		Kept:                   []contracts.Claim{},
		Dropped:                []contracts.DroppedClaim{},
		InvestigationCompleted: r.Completed,
		IncompleteReason:       r.IncompleteReason,
		TokensIn:               r.TokensIn,
		TokensOut:              r.TokensOut,
		ToolCalls:              r.ToolCalls,
		ReviewedAt:             in.Now.UTC(),
	}
	byID := map[string]Evidence{}
	for _, e := range in.Evidence {
		if _, dup := byID[e.ID]; !dup || e.Value != nil {
			byID[e.ID] = e
		}
	}
	// Each evidence's number tokens are read once, whatever the claims
	// citing it, and only when a claim that states a number cites it: most
	// evidence is cited by no such claim, and reading the tokens of a whole
	// evidence text is most of a review's work (issue 22).
	read := map[string][]Number{}
	numbers := func(id string) []Number {
		n, ok := read[id]
		if !ok {
			n = EvidenceNumbers(*byID[id].Value)
			read[id] = n
		}
		return n
	}
	seen := map[string]bool{}
	for _, c := range r.Claims {
		reasons := check(c, in, byID, numbers)
		if seen[c.ID] {
			reasons = append(reasons, "duplicate claim id "+c.ID)
		}
		seen[c.ID] = true
		if len(reasons) > 0 {
			out.Dropped = append(out.Dropped, contracts.DroppedClaim{Claim: c, Reasons: reasons})
			continue
		}
		out.Kept = append(out.Kept, c)
	}
	for i := range out.Kept {
		if out.Best == nil || out.Kept[i].Confidence > out.Best.Confidence {
			best := out.Kept[i]
			out.Best = &best
		}
	}
	out.InsufficientEvidence = len(out.Kept) == 0
	return out
}

func check(c contracts.Claim, in Input, byID map[string]Evidence, evidenceNumbers func(id string) []Number) []string {
	var reasons []string
	if c.ID == "" {
		reasons = append(reasons, "the claim has no id")
	}
	if !slices.ContainsFunc(in.Config.Catalogue, func(f contracts.FailureClass) bool { return f.Name == c.Class }) {
		reasons = append(reasons, fmt.Sprintf("class %q is not in the catalogue", c.Class))
	}
	if math.IsNaN(c.Confidence) || c.Confidence < 0 || c.Confidence > 1 {
		reasons = append(reasons, fmt.Sprintf("confidence %v is not in [0, 1]", c.Confidence))
	}
	if mutant.Off(mutant.ReviewerEvidenceIDs) {
		return reasons
	}
	if len(c.EvidenceIDs) == 0 {
		return append(reasons, "cites no evidence")
	}
	var cited []string
	for _, id := range c.EvidenceIDs {
		e, ok := byID[id]
		switch {
		case !ok:
			reasons = append(reasons, fmt.Sprintf("cites evidence %q that the report does not carry", id))
			continue
		case e.Value == nil:
			reasons = append(reasons, fmt.Sprintf("evidence %q is not the sandbox's record: %s", id, e.Err))
			continue
		}
		v := e.Value
		switch {
		case v.InvestigationID != in.Report.InvestigationID:
			reasons = append(reasons, fmt.Sprintf("evidence %q was recorded for investigation %q, not %q", id, v.InvestigationID, in.Report.InvestigationID))
			continue
		case !sha256Hex.MatchString(v.RawSHA256):
			reasons = append(reasons, fmt.Sprintf("evidence %q has no sha256 of the raw response", id))
			continue
		}
		if _, err := MatchRoute(in.Config.BaseURL, v.Link); err != nil {
			reasons = append(reasons, fmt.Sprintf("evidence %q link: %v", id, err))
		}
		cited = append(cited, id)
	}
	// A claim about another service than the report's (the origin of the
	// failures, DESIGN rule 17) stands only on evidence about that service.
	if c.Service != "" && c.Service != in.Report.Service && !mutant.Off(mutant.ReviewerClaimService) &&
		!slices.ContainsFunc(cited, func(id string) bool { return byID[id].Value.Service == c.Service }) {
		reasons = append(reasons, fmt.Sprintf("the claim diagnoses service %q but cites no evidence about it", c.Service))
	}
	if mutant.Off(mutant.ReviewerNumbers) {
		return reasons
	}
	quantities := Quantities(c.Statement)
	var numbers []Number
	if len(quantities) > 0 {
		for _, id := range cited {
			numbers = append(numbers, evidenceNumbers(id)...)
		}
	}
	for _, q := range quantities {
		if !Supported(q, numbers, in.Config.Tolerance) {
			reasons = append(reasons, fmt.Sprintf("number %s is not in the cited evidence (tolerance %g%%)", q.Text, in.Config.Tolerance*100))
		}
	}
	return reasons
}
