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
	Alert     json.RawMessage `json:"alert,omitempty"`
	DecidedAt time.Time       `json:"decided_at"`
	ExpiresAt time.Time       `json:"expires_at"`
}
