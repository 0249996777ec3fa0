package contracts

import "encoding/json"

// ToolCallV1 asks the sandbox to run one allowlisted telemetry tool for an
// investigation. The sandbox validates Arguments against the tool's schema and
// bounds; the caller names no query, key or endpoint.
type ToolCallV1 struct {
	CallID          string          `json:"call_id"`
	InvestigationID string          `json:"investigation_id"`
	IncidentID      string          `json:"incident_id"`
	Tool            string          `json:"tool"`
	Arguments       json.RawMessage `json:"arguments"`
	// Alert is the ingester-signed AlertV1 envelope under investigation: the
	// sandbox derives the incident window from it, never from the caller's word.
	Alert json.RawMessage `json:"alert"`
}

// ToolReplyV1 answers a ToolCallV1. On success Evidence is the sandbox-signed
// envelope of the EvidenceV1 it recorded (already durable on SubjectEvidence);
// on failure Error is text the model can read and correct its call from.
type ToolReplyV1 struct {
	CallID string `json:"call_id"`
	OK     bool   `json:"ok"`
	Error  string `json:"error,omitempty"`
	// Retryable is true when the same call may succeed later (SigNoz down, rate limited).
	Retryable bool            `json:"retryable,omitempty"`
	Evidence  json.RawMessage `json:"evidence,omitempty"`
}
