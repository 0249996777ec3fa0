package contracts

import (
	"encoding/json"
	"time"
)

// DroppedClaim is a claim the reviewer refused, with every reason.
type DroppedClaim struct {
	Claim   Claim    `json:"claim"`
	Reasons []string `json:"reasons"`
}

// ReviewV1 is the reviewer's verdict on a report: which claims the recorded
// evidence supports. The gate reads confidence only from Best.
type ReviewV1 struct {
	ReviewID        string         `json:"review_id"`
	InvestigationID string         `json:"investigation_id"`
	IncidentID      string         `json:"incident_id"`
	Service         string         `json:"service"`
	Investigator    string         `json:"investigator"`
	Kept            []Claim        `json:"kept"`
	Dropped         []DroppedClaim `json:"dropped"`
	// Best is the kept claim with the highest confidence; nil when none survived.
	Best *Claim `json:"best,omitempty"`
	// InsufficientEvidence is true when no claim survived: a human must look.
	InsufficientEvidence   bool      `json:"insufficient_evidence"`
	InvestigationCompleted bool      `json:"investigation_completed"`
	IncompleteReason       string    `json:"incomplete_reason,omitempty"`
	TokensIn               int       `json:"tokens_in"`
	TokensOut              int       `json:"tokens_out"`
	ToolCalls              int       `json:"tool_calls"`
	ReviewedAt             time.Time `json:"reviewed_at"`
	// Alert, Evidence and EvidenceRefs are passed through from the report,
	// the envelopes still signed by their producers; the gate verifies them
	// itself (fetching referenced evidence from KV agentk_evidence).
	Alert        json.RawMessage   `json:"alert"`
	Evidence     []json.RawMessage `json:"evidence"`
	EvidenceRefs []EvidenceRef     `json:"evidence_refs,omitempty"`
}
