package contracts

import (
	"encoding/json"
	"time"
)

// Claim is one thing the investigator asserts about the incident.
type Claim struct {
	ID string `json:"id"`
	// Class is a failure class from the catalogue, or "unknown".
	Class       string   `json:"class"`
	Statement   string   `json:"statement"`
	Confidence  float64  `json:"confidence"`
	EvidenceIDs []string `json:"evidence_ids"`
	// Service is the service whose failure the claim diagnoses, when it is not
	// the report's (alerted) service: the origin of the failures. Empty means the report's service.
	Service string `json:"service,omitempty"`
}

// Words an investigator puts in IncompleteReason when its tool calls failed
// because SigNoz could not be read, so that every reader (the report, Slack,
// the gate's reason) says the infrastructure failed instead of "insufficient
// evidence". The sandbox's error text tells the two apart.
const (
	IncompleteSigNozUnreachable = "SigNoz unreachable"
	IncompleteSigNozRejected    = "SigNoz rejected the API key"
)

// ReportV1 is an investigation's result. It carries the signed alert and
// names the sandbox-signed evidence envelopes it gathered, so the reviewer
// and the gate can verify every input without trusting the investigator.
type ReportV1 struct {
	InvestigationID string `json:"investigation_id"`
	IncidentID      string `json:"incident_id"`
	Service         string `json:"service"`
	// Investigator is "rules", "llm" or "persona:<name>".
	Investigator string  `json:"investigator"`
	Model        string  `json:"model,omitempty"`
	Claims       []Claim `json:"claims"`
	// Completed is false when a budget ran out or the minimum plan did not finish;
	// an incomplete investigation can never lead to an approval.
	Completed        bool      `json:"completed"`
	IncompleteReason string    `json:"incomplete_reason,omitempty"`
	Iterations       int       `json:"iterations"`
	ToolCalls        int       `json:"tool_calls"`
	TokensIn         int       `json:"tokens_in"`
	TokensOut        int       `json:"tokens_out"`
	StartedAt        time.Time `json:"started_at"`
	FinishedAt       time.Time `json:"finished_at"`
	// Alert is the ingester-signed envelope of the AlertV1 investigated.
	Alert json.RawMessage `json:"alert"`
	// Evidence are the sandbox-signed envelopes of every EvidenceV1 gathered,
	// carried inline: what an investigator wrote before EvidenceRefs, and
	// what recorded reports still hold. Readers accept both.
	Evidence []json.RawMessage `json:"evidence"`
	// EvidenceRefs name every EvidenceV1 gathered by id and payload digest;
	// the envelopes themselves are stored once, in KV agentk_evidence. A
	// reader older than this field sees no evidence and fails closed
	// (insufficient evidence): upgrade the reviewer and the gate before the
	// investigator.
	EvidenceRefs []EvidenceRef `json:"evidence_refs,omitempty"`
}
