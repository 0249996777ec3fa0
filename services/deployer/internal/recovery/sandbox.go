package recovery

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/services/deployer/internal/rollback"
)

// VerificationPrefix starts the investigation id of a recovery query,
// "verify-<action id>": the sandbox accepts a deployer-signed call only under
// it, and it marks the recorded evidence as the deployer's verification.
const VerificationPrefix = "verify-"

// Errors of the sandbox check. Each means recovery is unknown, which the
// deployer reports as not recovered, back to a human.
var (
	ErrNoAlert  = errors.New("recovery: no verified alert to scope the query")
	ErrSandbox  = errors.New("recovery: sandbox")
	ErrEvidence = errors.New("recovery: evidence rejected")
)

// Requester is the part of bus.Conn the check needs.
type Requester interface {
	Request(ctx context.Context, subject string, env envelope.Envelope) (envelope.Envelope, error)
}

// Sandbox asks the sandbox (the only holder of a SigNoz key) for the
// service_overview of the rolled-back service over [since, now] and judges it
// against Rule. The deployer never talks to SigNoz.
type Sandbox struct {
	Bus     Requester
	Signer  *envelope.Signer
	Keyring *envelope.Keyring
	Now     func() time.Time
	Rule    Rule
	// Timeout bounds the call (default 60 s: service_overview runs nine queries).
	Timeout time.Duration
}

// Recovered implements rollback.RecoveryChecker.
func (s Sandbox) Recovered(ctx context.Context, q rollback.RecoveryQuery) (bool, string, error) {
	if len(q.Alert) == 0 {
		return false, "", fmt.Errorf("%w: %s", ErrNoAlert, q.AlertProblem)
	}
	now := s.Now()
	args, err := json.Marshal(contracts.ToolArgs{Service: q.Service, From: ptr(q.Since.UTC()), To: ptr(now.UTC())})
	if err != nil {
		return false, "", fmt.Errorf("%w: %w", ErrSandbox, err)
	}
	call := contracts.ToolCallV1{
		CallID: "call." + VerificationPrefix + q.ActionID, InvestigationID: VerificationPrefix + q.ActionID,
		IncidentID: q.IncidentID, Tool: contracts.ToolServiceOverview, Arguments: args, Alert: q.Alert,
	}
	env, err := s.Signer.SealJSON(contracts.SubjectToolCall, call, now, 0)
	if err != nil {
		return false, "", fmt.Errorf("%w: seal: %w", ErrSandbox, err)
	}
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = time.Minute
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	renv, err := s.Bus.Request(rctx, contracts.SubjectToolCall, env)
	if err != nil {
		return false, "", fmt.Errorf("%w: %s: %w", ErrSandbox, q.ActionID, err)
	}
	at := s.Now()
	var reply contracts.ToolReplyV1
	if _, err := s.Keyring.Open(renv.Marshal(), contracts.SubjectToolReply, at, &reply); err != nil {
		return false, "", fmt.Errorf("%w: reply: %w", ErrSandbox, err)
	}
	if reply.CallID != call.CallID {
		return false, "", fmt.Errorf("%w: reply for %q to call %q", ErrSandbox, reply.CallID, call.CallID)
	}
	if !reply.OK {
		return false, "", fmt.Errorf("%w: refused or failed (retryable %v): %s", ErrSandbox, reply.Retryable, reply.Error)
	}
	var ev contracts.EvidenceV1
	if _, err := s.Keyring.Open(reply.Evidence, contracts.SubjectEvidence, at, &ev); err != nil {
		return false, "", fmt.Errorf("%w: %w", ErrEvidence, err)
	}
	if ev.Tool != contracts.ToolServiceOverview || ev.Service != q.Service || ev.InvestigationID != call.InvestigationID || ev.IncidentID != q.IncidentID {
		return false, "", fmt.Errorf("%w: evidence %s is %s of %s for %s/%s, asked %s of %s for %s/%s", ErrEvidence, ev.ID,
			ev.Tool, ev.Service, ev.InvestigationID, ev.IncidentID, contracts.ToolServiceOverview, q.Service, call.InvestigationID, q.IncidentID)
	}
	ok, detail := Judge(ev.Facts, s.Rule)
	return ok, fmt.Sprintf("telemetry (sandbox service_overview, evidence %s) over %s..%s: %s", ev.ID,
		ev.From.Format(time.RFC3339), ev.To.Format(time.RFC3339), detail), nil
}

func ptr[T any](v T) *T { return &v }

var _ rollback.RecoveryChecker = Sandbox{}
