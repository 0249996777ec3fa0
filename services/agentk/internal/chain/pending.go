package chain

import (
	"encoding/json"
	"sort"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
)

// Decision is one decision awaiting a human's answer (a line of `agentk
// decisions`).
type Decision struct {
	DecisionID     string    `json:"decision_id"`
	IncidentID     string    `json:"incident_id"`
	Service        string    `json:"service"`
	Action         string    `json:"action"`
	RollbackTarget string    `json:"rollback_target,omitempty"`
	Diagnosis      string    `json:"diagnosis,omitempty"`
	Confidence     float64   `json:"confidence"`
	DecidedAt      time.Time `json:"decided_at"`
	ExpiresAt      time.Time `json:"expires_at"`
	// AlertResolvedAt is when the incident's alert resolved (the ingester's
	// record), zero while it fires: an approval must then re-confirm after
	// it. Pending leaves it zero; `agentk decisions` fills it.
	AlertResolvedAt time.Time `json:"alert_resolved_at,omitzero"`
	// AlertedService and Why are set for a derived decision (issue 33): the
	// alert fired on AlertedService, and Why says why the decision acts on
	// Service instead, in the gate's words.
	AlertedService string `json:"alerted_service,omitempty"`
	Why            string `json:"why,omitempty"`
}

// Pending is `agentk decisions`' core, a pure function of the keyring,
// the stored messages and the time: the gate-signed decisions that allow an
// action, are not shadow decisions, have not expired at now and that no
// bridge-signed approval (yes or no) answers. A message whose signature does
// not verify is neither a decision nor an answer. Oldest first: the one
// closest to expiring leads.
func Pending(kr *envelope.Keyring, msgs []Msg, now time.Time) []Decision {
	answered := map[string]bool{}
	var decs []contracts.DecisionV1
	for _, m := range msgs {
		switch m.Subject {
		case contracts.SubjectApproval:
			o := VerifyAt(kr, m.Data, m.Subject)
			var a contracts.ApprovalV1
			if o.Err == nil && json.Unmarshal(o.Env.Payload, &a) == nil {
				answered[a.DecisionID] = true
			}
		case contracts.SubjectDecision:
			o := VerifyAt(kr, m.Data, m.Subject)
			var d contracts.DecisionV1
			if o.Err == nil && json.Unmarshal(o.Env.Payload, &d) == nil {
				decs = append(decs, d)
			}
		}
	}
	var out []Decision
	for _, d := range decs {
		if d.Verdict != contracts.VerdictAllow || d.Shadow || answered[d.DecisionID] || !now.Before(d.ExpiresAt) {
			continue
		}
		row := Decision{
			DecisionID: d.DecisionID, IncidentID: d.IncidentID, Service: d.Service, Action: d.Action,
			RollbackTarget: d.RollbackTarget, Diagnosis: d.Diagnosis, Confidence: d.Confidence,
			DecidedAt: d.DecidedAt, ExpiresAt: d.ExpiresAt,
		}
		if o := d.Origin; o != nil {
			row.AlertedService, row.Why = o.AlertedService, o.Reason
		}
		out = append(out, row)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ExpiresAt.Before(out[j].ExpiresAt) })
	return out
}
