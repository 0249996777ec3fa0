package contracts

import (
	"encoding/json"
	"time"
)

// Answers.
const (
	AnswerApprove = "approve"
	AnswerDeny    = "deny"
)

// Channels a human answers through.
const (
	ChannelSlack = "slack"
	ChannelWeb   = "web"
	ChannelCLI   = "cli"
)

// ApprovalV1 is a human's signed answer to one decision.
type ApprovalV1 struct {
	ApprovalID string `json:"approval_id"`
	DecisionID string `json:"decision_id"`
	// DecisionDigest is the hex sha256 of the decision envelope's payload bytes.
	DecisionDigest string    `json:"decision_digest"`
	IncidentID     string    `json:"incident_id"`
	Service        string    `json:"service"`
	Answer         string    `json:"answer"`
	Approver       string    `json:"approver"`
	Channel        string    `json:"channel"`
	AnsweredAt     time.Time `json:"answered_at"`
	// ExpiresAt is never later than the decision's.
	ExpiresAt time.Time `json:"expires_at"`
	// ResolvedConfirmedAt is set by the bridge only when the human answered
	// after being shown that the incident's alert had resolved: it is the
	// resolve time the human saw. The deployer refuses an approval of an
	// incident whose alert resolved unless this is at or after that resolve.
	ResolvedConfirmedAt time.Time `json:"resolved_confirmed_at,omitzero"`
	// Decision is the gate-signed decision envelope this answers; the deployer
	// verifies it itself.
	Decision json.RawMessage `json:"decision"`
}
