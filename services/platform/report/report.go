// Package report is the incident report: the one page an on-call engineer
// reads. Build turns the pipeline's messages into one Report; Markdown (for
// Slack and files) and HTML (for the bridge's console) render that same
// value. Every text that came from the model, a log or an alert is escaped.
package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"agentk/contracts"
	"agentk/platform/human"
)

// ErrDecode is returned by Decode for a stored value that is not a Sources.
var ErrDecode = errors.New("report: cannot decode")

// Status is the report's banner.
type Status string

// Banners, in the order an incident moves through them.
const (
	StatusInvestigating       Status = "investigating"
	StatusNeedsHuman          Status = "needs_human"
	StatusAwaitingApproval    Status = "awaiting_approval"
	StatusActionDenied        Status = "action_denied"
	StatusDryRun              Status = "dry_run"
	StatusRecovered           Status = "rolled_back_recovered"
	StatusNotRecovered        Status = "rolled_back_not_recovered"
	StatusRecoveryUnconfirmed Status = "rolled_back_unverified"
	StatusFailed              Status = "failed"
)

// Sources are the messages a report is built from, as verified by whoever
// stored them. They are what the reviewer keeps in KV agentk_reports.
type Sources struct {
	Alert    *contracts.AlertV1     `json:"alert,omitempty"`
	Report   *contracts.ReportV1    `json:"report,omitempty"`
	Evidence []contracts.EvidenceV1 `json:"evidence,omitempty"`
	Review   *contracts.ReviewV1    `json:"review,omitempty"`
	Decision *contracts.DecisionV1  `json:"decision,omitempty"`
	// Derived is the gate's derived decision about the service where the
	// alerted service's failures begin (issue 33), when it made one;
	// Decision stays the alerted service's.
	Derived  *contracts.DecisionV1 `json:"derived,omitempty"`
	Approval *contracts.ApprovalV1 `json:"approval,omitempty"`
	Action   *contracts.ActionV1   `json:"action,omitempty"`
}

// Report is the rendered incident, one value for every renderer.
type Report struct {
	IncidentID   string
	Service      string
	Status       Status
	Banner       string
	Alert        *Alert
	Kept         []Claim
	Dropped      []Dropped
	Insufficient bool
	// Infrastructure says, when set, that the investigation could not read
	// the telemetry (SigNoz down or refusing the key): what the on-call
	// must fix first, and why there are no findings.
	Infrastructure string
	Decision       *Decision
	// Derived is the decision about the service where the alerted service's
	// failures begin, when the gate made one (Origin says why that service).
	Derived  *Decision
	Approval *contracts.ApprovalV1
	Action   *Action
	Agent    *Agent
}

// Alert is the alert as the report shows it.
type Alert struct {
	Name, RuleID, Severity, Status string
	StartsAt                       time.Time
	BurnRate                       float64
	BurnRateSource                 string
	GeneratorURL                   string
}

// Claim is a kept claim with the evidence it cites.
type Claim struct {
	contracts.Claim
	Evidence []EvidenceRow
}

// EvidenceRow is one line of a claim's evidence table.
type EvidenceRow struct {
	ID, Tool, Link string
	From, To       time.Time
}

// Dropped is a dropped claim with every reason.
type Dropped struct {
	contracts.Claim
	Reasons []string
}

// Decision is the gate's verdict with its checks.
type Decision struct {
	ID, Verdict, NextStep, Diagnosis, RollbackTarget string
	Confidence                                       float64
	Checks                                           []contracts.CheckResult
	FailedChecks                                     []string
	DecidedAt, ExpiresAt                             time.Time
	// Service and Origin are set on a derived decision: the service it acts
	// on and why that is not the alerted one.
	Service string
	Origin  *contracts.DecisionOrigin
}

// Action is what the deployer did and whether the service recovered.
type Action struct {
	Outcome, Reason, FromImage, ToImage string
	ContainerVerified                   bool
	Recovered                           *bool
	TotalMs                             int64
}

// Agent is the investigation's own numbers.
type Agent struct {
	Investigator, Model string
	Completed           bool
	IncompleteReason    string
	Iterations          int
	ToolCalls           int
	TokensIn, TokensOut int
	Duration            time.Duration
}

// Decode unmarshals stored Sources and builds the report.
func Decode(b []byte) (Report, error) {
	var s Sources
	if err := json.Unmarshal(b, &s); err != nil {
		return Report{}, fmt.Errorf("%w: %w", ErrDecode, err)
	}
	return Build(s), nil
}

// Build makes the report from whatever sources have arrived so far.
func Build(s Sources) Report {
	var r Report
	switch {
	case s.Review != nil:
		r.IncidentID, r.Service = s.Review.IncidentID, s.Review.Service
	case s.Report != nil:
		r.IncidentID, r.Service = s.Report.IncidentID, s.Report.Service
	case s.Alert != nil:
		r.IncidentID, r.Service = s.Alert.IncidentID, s.Alert.Service
	case s.Decision != nil:
		r.IncidentID, r.Service = s.Decision.IncidentID, s.Decision.Service
	}
	if a := s.Alert; a != nil {
		r.Alert = &Alert{Name: a.AlertName, RuleID: a.RuleID, Severity: a.Severity, Status: a.Status, StartsAt: a.StartsAt,
			BurnRate: a.BurnRate, BurnRateSource: a.BurnRateSource, GeneratorURL: a.Links.Generator}
	}
	evidence := map[string]contracts.EvidenceV1{}
	for _, e := range s.Evidence {
		evidence[e.ID] = e
	}
	if v := s.Review; v != nil {
		for _, c := range v.Kept {
			k := Claim{Claim: c}
			for _, id := range c.EvidenceIDs {
				e := evidence[id]
				k.Evidence = append(k.Evidence, EvidenceRow{ID: id, Tool: e.Tool, Link: e.Link, From: e.From, To: e.To})
			}
			r.Kept = append(r.Kept, k)
		}
		for _, d := range v.Dropped {
			r.Dropped = append(r.Dropped, Dropped{Claim: d.Claim, Reasons: d.Reasons})
		}
		r.Insufficient = v.InsufficientEvidence
	}
	if d := s.Decision; d != nil {
		r.Decision = &Decision{ID: d.DecisionID, Verdict: d.Verdict, NextStep: d.NextStep, Diagnosis: d.Diagnosis,
			RollbackTarget: d.RollbackTarget, Confidence: d.Confidence, Checks: d.Checks, FailedChecks: d.FailedChecks,
			DecidedAt: d.DecidedAt, ExpiresAt: d.ExpiresAt}
	}
	if d := s.Derived; d != nil {
		r.Derived = &Decision{ID: d.DecisionID, Verdict: d.Verdict, NextStep: d.NextStep, Diagnosis: d.Diagnosis,
			RollbackTarget: d.RollbackTarget, Confidence: d.Confidence, Checks: d.Checks, FailedChecks: d.FailedChecks,
			DecidedAt: d.DecidedAt, ExpiresAt: d.ExpiresAt, Service: d.Service, Origin: d.Origin}
	}
	r.Approval = s.Approval
	if a := s.Action; a != nil {
		r.Action = &Action{Outcome: a.Outcome, Reason: a.Reason, FromImage: a.FromImage, ToImage: a.ToImage,
			ContainerVerified: a.ContainerVerified, Recovered: a.Recovered, TotalMs: a.TotalMs}
	}
	if p := s.Report; p != nil {
		r.Agent = &Agent{Investigator: p.Investigator, Model: p.Model, Completed: p.Completed, IncompleteReason: p.IncompleteReason,
			Iterations: p.Iterations, ToolCalls: p.ToolCalls, TokensIn: p.TokensIn, TokensOut: p.TokensOut,
			Duration: p.FinishedAt.Sub(p.StartedAt)}
	}
	r.Infrastructure = infrastructure(s.Report)
	r.Status, r.Banner = status(s)
	return r
}

// infrastructure reads the investigator's incomplete reason for the words it
// uses when SigNoz could not be read.
func infrastructure(p *contracts.ReportV1) string {
	if p == nil || p.Completed {
		return ""
	}
	switch {
	case strings.Contains(p.IncompleteReason, contracts.IncompleteSigNozRejected):
		return contracts.IncompleteSigNozRejected + ": the sandbox's SigNoz key was refused, so no telemetry was read."
	case strings.Contains(p.IncompleteReason, contracts.IncompleteSigNozUnreachable):
		return contracts.IncompleteSigNozUnreachable + ": the sandbox could not reach SigNoz, so no telemetry was read."
	}
	return ""
}

func humanMs(ms int64) string { return human.Duration(time.Duration(ms) * time.Millisecond) }

func status(s Sources) (Status, string) {
	if a := s.Action; a != nil {
		switch a.Outcome {
		case contracts.OutcomeRolledBack:
			switch {
			case a.Recovered == nil:
				return StatusRecoveryUnconfirmed, "Rolled back, recovery not yet verified"
			case *a.Recovered:
				return StatusRecovered, "Rolled back and recovered"
			default:
				return StatusNotRecovered, "Rolled back, NOT recovered: a human must act"
			}
		case contracts.OutcomeDryRun:
			return StatusDryRun, "Dry run: the rollback was approved but nothing was changed"
		case contracts.OutcomeFailed, contracts.OutcomeRefused:
			return StatusFailed, "Rollback " + a.Outcome + ": a human must act"
		}
	}
	if p := s.Approval; p != nil && p.Answer == contracts.AnswerDeny {
		return StatusActionDenied, "Action denied by " + p.Approver
	}
	if d := s.Derived; d != nil && d.Verdict == contracts.VerdictAllow && d.Origin != nil {
		// The rollback on offer is the derived decision's: say whose.
		if s.Approval != nil {
			return StatusAwaitingApproval, "Rollback of " + d.Service + " approved by " + s.Approval.Approver + ", waiting for the deployer"
		}
		return StatusAwaitingApproval, "Needs a human: the alert is on " + d.Origin.AlertedService + ", the gate allows a rollback of " + d.Service + " (" + d.Origin.Reason + "), approve or deny it"
	}
	if d := s.Decision; d != nil {
		if d.Verdict == contracts.VerdictAllow {
			if s.Approval != nil {
				return StatusAwaitingApproval, "Rollback approved by " + s.Approval.Approver + ", waiting for the deployer"
			}
			return StatusAwaitingApproval, "Needs a human: the gate allows a rollback, approve or deny it"
		}
		if why := infrastructure(s.Report); why != "" {
			return StatusActionDenied, "Action denied by the gate: " + joinComma(d.FailedChecks) + ". " + why
		}
		return StatusActionDenied, "Action denied by the gate: " + joinComma(d.FailedChecks)
	}
	if v := s.Review; v != nil && v.InsufficientEvidence {
		if why := infrastructure(s.Report); why != "" {
			return StatusNeedsHuman, "Needs a human: " + why
		}
		return StatusNeedsHuman, "Needs a human: insufficient evidence"
	}
	if s.Review != nil {
		return StatusNeedsHuman, "Needs a human: waiting for the gate"
	}
	return StatusInvestigating, "Investigating"
}

func joinComma(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}
