package contracts

import (
	"encoding/json"
	"time"
)

// Verdicts.
const (
	VerdictAllow = "allow"
	VerdictDeny  = "deny"
)

// Check names, in the order the gate evaluates them: the six of DESIGN.md,
// then the freeze.
const (
	CheckSLOBreach         = "slo_breach"
	CheckAllowlist         = "allowlist"
	CheckCooldown          = "cooldown"
	CheckConfidence        = "confidence"
	CheckDeploymentRelated = "deployment_related"
	CheckSandboxScope      = "sandbox_scope"
	// CheckFreeze: no active freeze (FreezeV1) covers the service.
	CheckFreeze = "freeze"
)

// CheckResult is one gate check with the inputs it saw.
type CheckResult struct {
	Name   string            `json:"name"`
	Passed bool              `json:"passed"`
	Reason string            `json:"reason"`
	Inputs map[string]string `json:"inputs,omitempty"`
}

// DecisionV1 is the gate's signed verdict on one proposed action. Approvals bind
// to the sha256 of its envelope payload (the digest).
type DecisionV1 struct {
	DecisionID      string        `json:"decision_id"`
	IncidentID      string        `json:"incident_id"`
	InvestigationID string        `json:"investigation_id"`
	ReviewID        string        `json:"review_id"`
	Service         string        `json:"service"`
	Action          string        `json:"action"`
	Verdict         string        `json:"verdict"`
	Checks          []CheckResult `json:"checks"`
	FailedChecks    []string      `json:"failed_checks"`
	// NextStep tells the on-call human what to do after a denial.
	NextStep   string  `json:"next_step,omitempty"`
	Diagnosis  string  `json:"diagnosis,omitempty"`
	Confidence float64 `json:"confidence"`
	// RollbackTarget is the image of the release ledger's target at decision
	// time: what the human approves moving to. The deployer never takes an
	// image from here (it reads its own ledger); it refuses when its own plan's
	// target is not this image.
	RollbackTarget string `json:"rollback_target,omitempty"`
	// CurrentImage is the image the release ledger said runs now, at decision
	// time: what the human approves moving from. The deployer refuses when its
	// own plan starts from another image (the ledger moved since the decision).
	CurrentImage string `json:"current_image,omitempty"`
	// Shadow marks a decision that will never be acted on.
	Shadow bool `json:"shadow,omitempty"`
	// Alert is the ingester-signed AlertV1 envelope the decision is about,
	// passed through unchanged from the review, and set only when it verified.
	// The deployer checks its signature and that it names this incident and
	// service, then carries it into its recovery query: the sandbox derives
	// the query window from it, never from the deployer's word.
	Alert json.RawMessage `json:"alert,omitempty"`
	// Origin is set on a derived decision only: one about the service where
	// the alerted service's new failures begin (a callee with its own
	// release, DESIGN.md rule 17), not about the alerted service. Service is
	// then the origin; Alert still carries the alerted service's alert, and
	// Origin.AlertedService must name the service that alert names.
	Origin    *DecisionOrigin `json:"origin,omitempty"`
	DecidedAt time.Time       `json:"decided_at"`
	ExpiresAt time.Time       `json:"expires_at"`
}

// DecisionOrigin says why a derived decision acts on a service that is not
// the alerted one: the alert fired on AlertedService, and Share of its new
// failures since the onset begin in the decision's service. One alert yields
// at most one decision per service: the alerted service's (AlertedDecisionID)
// and at most one derived decision, each with its own id and each spent once.
type DecisionOrigin struct {
	// AlertedService is the service the signed alert names.
	AlertedService string `json:"alerted_service"`
	// AlertedDecisionID is the id of the gate's decision about the alerted
	// service for the same review.
	AlertedDecisionID string `json:"alerted_decision_id"`
	// Signal is what the failures are: "errors" or "latency".
	Signal string `json:"signal"`
	// Share is the fraction (0..1) of the alerted service's new failures
	// whose failing spans begin in the decision's service.
	Share float64 `json:"share"`
	// Failures and Total are the counts Share was computed from.
	Failures int64 `json:"failures"`
	Total    int64 `json:"total"`
	// Reason says it in words for the human, e.g. "checkout burns its
	// budget; 71% of its new failures begin in payment".
	Reason string `json:"reason"`
}

// DerivedDecisionID is the id of the derived decision about service for the
// gate's decision alertedID: unique per (alert, service), so the deployer
// spends each once (agentk_spent is keyed by decision id).
func DerivedDecisionID(alertedID, service string) string {
	return alertedID + ".origin." + service
}
