// Package loop is the investigation: the minimum evidence plan, then
// model-driven tool calls through the sandbox until the model answers or a
// budget runs out. It talks to the world only through ToolCaller and Model, so
// the same loop runs the rules investigator, a real LLM and the scripted personas.
package loop

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"agentk/contracts"
)

// Errors returned by Investigate and by the ports it calls.
var (
	// ErrToolUnavailable is returned by a ToolCaller when the sandbox could not be
	// reached or its reply could not be verified. Investigate returns it wrapped:
	// the alert should be redelivered, not reported on.
	ErrToolUnavailable = errors.New("loop: sandbox unavailable")
	// ErrCancelled is returned when the caller's context ended (shutdown).
	ErrCancelled = errors.New("loop: cancelled")
	// ErrTokenBudget is returned by a Model that cannot make its next request
	// within State.TokensLeft.
	ErrTokenBudget = errors.New("loop: token budget exhausted")
)

// Incomplete reasons, stable strings for reports and dashboards.
const (
	ReasonPlan       = "minimum_plan_failed"
	ReasonIterations = "iteration_budget"
	ReasonTokens     = "token_budget"
	ReasonWallTime   = "wall_time_budget"
	ReasonLoop       = "loop_breaker"
	ReasonModel      = "model_error"
)

// Reply is a verified tool reply: either evidence or an error the model may read.
type Reply struct {
	OK        bool
	Error     string
	Retryable bool
	Evidence  contracts.EvidenceV1
	// Envelope is the sandbox-signed evidence envelope, byte for byte.
	Envelope json.RawMessage
	// Ref names Envelope where the sandbox stored it (KV agentk_evidence):
	// what the report carries instead of the envelope.
	Ref contracts.EvidenceRef
}

// ToolCaller runs one tool call in the sandbox. It returns an error wrapping
// ErrToolUnavailable when the sandbox could not be reached or its reply was not
// verifiable, and the context's error when ctx ended.
type ToolCaller interface {
	Call(ctx context.Context, call contracts.ToolCallV1) (Reply, error)
}

// Evidence is one verified piece of evidence and its envelope.
type Evidence struct {
	contracts.EvidenceV1
	Envelope json.RawMessage
}

// ToolRequest is one tool call a model asked for.
type ToolRequest struct {
	// ID is the model's tool-call id, echoed back with the result.
	ID        string
	Tool      string
	Arguments json.RawMessage
}

// ToolResult answers one ToolRequest: an evidence id or an error text.
type ToolResult struct {
	Request    ToolRequest
	EvidenceID string
	Error      string
}

// Turn is one earlier model turn and the results of its calls.
type Turn struct {
	Content string
	Results []ToolResult
}

// State is everything a model may see at one turn.
type State struct {
	InvestigationID string
	Alert           contracts.AlertV1
	Catalogue       []contracts.FailureClass
	// Evidence is every piece gathered so far, in order, the minimum plan first.
	Evidence []Evidence
	// PlanErrors are the minimum plan's failed calls.
	PlanErrors []ToolResult
	Turns      []Turn
	// Final is true when this is the last turn the budget allows: the model
	// must answer, not call tools.
	Final bool
	// TokensLeft is what remains of the token budget.
	TokensLeft int
}

// Answer is a model's turn: tool calls, or a final answer.
type Answer struct {
	Calls []ToolRequest
	// Content is the final answer text, parsed against the answer schema.
	Content string
	// Claims, when non-nil, are a final answer that needs no parsing (rules).
	Claims []contracts.Claim
	// TokensIn and TokensOut are the provider's usage for this turn.
	TokensIn, TokensOut int
	Model               string
}

// Model decides the next step. It returns ErrTokenBudget when it cannot stay
// within State.TokensLeft; any other error ends the investigation incomplete.
type Model interface {
	Next(ctx context.Context, s State) (Answer, error)
}

// Budget bounds one investigation.
type Budget struct {
	MaxIterations int
	MaxTokens     int
	WallTime      time.Duration
	// MaxRepeats is how many repeated identical calls the loop breaker tolerates.
	MaxRepeats int
	// MaxCallsPerTurn caps the tool calls one model turn may make.
	MaxCallsPerTurn int
}

// DefaultBudget bounds one investigation: up to four model turns over the
// minimum plan's evidence. Every turn sends the whole conversation again, so
// the tokens grow with each turn: on every committed corpus the scripted
// oracle's two turns spend up to 7,310 tokens (p50 5,398), and its first
// request alone up to about 6,000 where the overviews are large; 16,000
// leaves a real model room for a third and fourth turn.
func DefaultBudget() Budget {
	return Budget{MaxIterations: 8, MaxTokens: 16000, WallTime: 2 * time.Minute, MaxRepeats: 2, MaxCallsPerTurn: 4}
}

// Input is one investigation to run.
type Input struct {
	InvestigationID string
	Alert           contracts.AlertV1
	// AlertEnvelope is the ingester-signed alert, passed to the sandbox and
	// into the report unchanged.
	AlertEnvelope json.RawMessage
	// Investigator is "rules", "llm" or "persona:<name>".
	Investigator string
}

// Deps are the ports and configuration of the loop.
type Deps struct {
	Tools     ToolCaller
	Model     Model
	Now       func() time.Time
	Catalogue []contracts.FailureClass
	Budget    Budget
}
