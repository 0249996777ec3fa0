// Package approval is the bridge's core: what an open decision is, who may
// answer it, and when an answer is refused. It does no I/O and reads no clock;
// the adapters stamp the time once and pass it in.
package approval

import (
	"encoding/json"
	"time"

	"agentk/contracts"
)

// Record is one decision as the bridge keeps it (KV bucket agentk_decisions,
// key = decision id): the gate-signed envelope exactly as received, its digest,
// the decoded decision, where it was posted, and at most one answer.
type Record struct {
	DecisionID string `json:"decision_id"`
	// Envelope is the gate-signed decision envelope, byte for byte.
	Envelope json.RawMessage `json:"envelope"`
	// Digest is the hex sha256 of the envelope's payload bytes.
	Digest   string               `json:"digest"`
	Decision contracts.DecisionV1 `json:"decision"`
	// ExpiresAt is the earlier of the envelope's expiry and the decision's own.
	ExpiresAt  time.Time `json:"expires_at"`
	ReceivedAt time.Time `json:"received_at"`
	// SlackChannel and SlackTS locate the posted Slack message, once posted.
	SlackChannel string `json:"slack_channel,omitempty"`
	SlackTS      string `json:"slack_ts,omitempty"`
	// Answer is set once, by the first accepted answer.
	Answer *Answer `json:"answer,omitempty"`
	// Refusals are the most recent refused answers, newest last.
	Refusals []Refusal `json:"refusals,omitempty"`
	// TraceParent is the W3C traceparent the decision arrived with; the
	// approval is published in that trace.
	TraceParent string `json:"traceparent,omitempty"`
	// Action is the deployer-signed outcome for this decision
	// (agentk.action.v1) that the message shows (see WithAction).
	Action *contracts.ActionV1 `json:"action,omitempty"`
	// Told lists the action ids already posted in the Slack thread (last 16).
	Told []string `json:"told,omitempty"`
	// Shown is the action id the Slack message was last updated to show.
	Shown string `json:"shown,omitempty"`
	// ResolvedAt is the resolve time of the incident's alert that the Slack
	// message was rewritten to show (zero: it shows the alert firing).
	ResolvedAt time.Time `json:"resolved_at,omitzero"`
}

// maxTold bounds Record.Told.
const maxTold = 16

// WithAction returns r showing act. A refusal (a repeated approval, say)
// never replaces an outcome that did something: the message keeps saying
// what was done, and the refusal is told in the thread only.
func (r Record) WithAction(act contracts.ActionV1) Record {
	if r.Action != nil && act.Outcome == contracts.OutcomeRefused && r.Action.Outcome != contracts.OutcomeRefused {
		return r
	}
	a := act
	r.Action = &a
	return r
}

// IsTold reports whether action id was posted in the thread.
func (r Record) IsTold(id string) bool {
	for _, t := range r.Told {
		if t == id {
			return true
		}
	}
	return false
}

// WithTold returns r with id marked as posted in the thread.
func (r Record) WithTold(id string) Record {
	if r.IsTold(id) {
		return r
	}
	out := append(append([]string(nil), r.Told...), id)
	if len(out) > maxTold {
		out = out[len(out)-maxTold:]
	}
	r.Told = out
	return r
}

// Answer is the one accepted answer to a decision.
type Answer struct {
	ApprovalID string    `json:"approval_id"`
	Answer     string    `json:"answer"`
	Approver   string    `json:"approver"`
	Channel    string    `json:"channel"`
	AnsweredAt time.Time `json:"answered_at"`
	// RequestID identifies the request that carried the answer (for Slack, a
	// hash of its signature) so a replay of it is named as such.
	RequestID string `json:"request_id,omitempty"`
	// Approval is the bridge-signed agentk.approval.v1 envelope.
	Approval json.RawMessage `json:"approval"`
	// Published is true once the approval is on the bus.
	Published bool `json:"published"`
}

// Refusal is one refused answer, kept with the decision it tried to answer.
type Refusal struct {
	At       time.Time `json:"at"`
	Approver string    `json:"approver,omitempty"`
	// Identity is what the request claimed to be (e.g. slack:U123) when it did
	// not map to an approver.
	Identity string `json:"identity,omitempty"`
	Channel  string `json:"channel"`
	Answer   string `json:"answer,omitempty"`
	Reason   string `json:"reason"`
}

// MaxRefusals bounds how many refusals a record keeps.
const MaxRefusals = 32

// Status is a record's state as shown to humans.
type Status string

// Statuses.
const (
	StatusOpen     Status = "open"
	StatusAnswered Status = "answered"
	StatusExpired  Status = "expired"
	// StatusInformational is a gate denial: posted for information, never answerable.
	StatusInformational Status = "denied_by_gate"
)

// StatusAt returns the record's status at now.
func (r Record) StatusAt(now time.Time) Status {
	switch {
	case r.Answer != nil:
		return StatusAnswered
	case r.Decision.Verdict != contracts.VerdictAllow:
		return StatusInformational
	case !now.Before(r.ExpiresAt):
		return StatusExpired
	default:
		return StatusOpen
	}
}

// WithRefusal returns r with f appended, dropping the oldest beyond MaxRefusals.
func (r Record) WithRefusal(f Refusal) Record {
	out := append(append([]Refusal(nil), r.Refusals...), f)
	if len(out) > MaxRefusals {
		out = out[len(out)-MaxRefusals:]
	}
	r.Refusals = out
	return r
}
