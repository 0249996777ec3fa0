package contracts

import "time"

// Action outcomes.
const (
	OutcomeNone       = "none"
	OutcomeDryRun     = "dry_run"
	OutcomeRolledBack = "rolled_back"
	OutcomeFailed     = "failed"
	OutcomeRefused    = "refused"
	// OutcomeShadow: a shadow decision was approved; the deployer did every
	// check and planned the rollback (Command, FromImage, ToImage) but changed
	// nothing.
	OutcomeShadow = "shadow"
)

// ActionV1 is what the deployer did with an approval, and whether it worked.
type ActionV1 struct {
	ActionID   string `json:"action_id"`
	IncidentID string `json:"incident_id"`
	DecisionID string `json:"decision_id"`
	ApprovalID string `json:"approval_id"`
	Service    string `json:"service"`
	Outcome    string `json:"outcome"`
	// Reason explains a refusal or failure.
	Reason    string   `json:"reason,omitempty"`
	FromImage string   `json:"from_image,omitempty"`
	ToImage   string   `json:"to_image,omitempty"`
	Command   []string `json:"command,omitempty"`
	ExitCode  int      `json:"exit_code"`
	// ContainerVerified is true when Docker shows the container running the target image id.
	ContainerVerified bool `json:"container_verified"`
	// Recovered is nil until telemetry was checked after the stabilisation window.
	Recovered  *bool     `json:"recovered,omitempty"`
	ActionMs   int64     `json:"action_ms"`
	VerifyMs   int64     `json:"verify_ms"`
	TotalMs    int64     `json:"total_ms"`
	StartedAt  time.Time `json:"started_at"`
	FinishedAt time.Time `json:"finished_at"`
}
