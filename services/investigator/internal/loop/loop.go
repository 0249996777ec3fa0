package loop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"agentk/contracts"
	"agentk/services/investigator/internal/parse"
	"agentk/services/investigator/internal/plan"
)

// run is the mutable state of one investigation.
type run struct {
	in      Input
	d       Deps
	state   State
	report  contracts.ReportV1
	seen    map[string]string // call key → evidence id or error
	repeats int
	callSeq int
	planOK  bool
	// budgetFinal is set when the token budget made the last turn a final
	// one (ask): the model may answer, not call tools.
	budgetFinal bool
}

// Investigate runs one investigation and returns its report, unsealed. The
// report is incomplete (and can never lead to an approval) when the minimum
// plan failed or any budget ran out. It returns an error only when the
// investigation should be retried later: the sandbox was unavailable
// (ErrToolUnavailable) or ctx ended (ErrCancelled).
func Investigate(ctx context.Context, in Input, d Deps) (contracts.ReportV1, error) {
	if d.Budget.MaxRepeats <= 0 {
		d.Budget.MaxRepeats = 2
	}
	if d.Budget.MaxCallsPerTurn <= 0 {
		d.Budget.MaxCallsPerTurn = 4
	}
	r := &run{in: in, d: d, seen: map[string]string{}, planOK: true}
	r.state = State{InvestigationID: in.InvestigationID, Alert: in.Alert, Catalogue: d.Catalogue, TokensLeft: d.Budget.MaxTokens}
	r.report = contracts.ReportV1{
		InvestigationID: in.InvestigationID, IncidentID: in.Alert.IncidentID, Service: in.Alert.Service,
		Investigator: in.Investigator, StartedAt: d.Now(), Alert: in.AlertEnvelope,
		Claims: []contracts.Claim{}, Evidence: []json.RawMessage{},
	}
	ictx := ctx
	if d.Budget.WallTime > 0 {
		var cancel context.CancelFunc
		ictx, cancel = context.WithTimeout(ctx, d.Budget.WallTime)
		defer cancel()
	}
	claims, reason, err := r.investigate(ctx, ictx)
	if err != nil {
		return contracts.ReportV1{}, err
	}
	if reason == "" && !r.planOK {
		reason = ReasonPlan
		if why := infrastructure(r.state.PlanErrors); why != "" {
			reason += ": " + why
		}
	}
	r.report.Completed = reason == ""
	r.report.IncompleteReason = reason
	if claims == nil {
		claims = []contracts.Claim{parse.Unknown("investigation incomplete (" + reason + "): nothing conclusive")}
	}
	r.report.Claims = claims
	r.report.FinishedAt = d.Now()
	return r.report, nil
}

// infrastructure names the plan's failure when SigNoz itself could not be
// read, in the words every reader looks for (contracts.IncompleteSigNoz*),
// with the sandbox's own error: the sandbox puts those words in its error
// reply when SigNoz refused its key or could not be reached.
func infrastructure(errs []ToolResult) string {
	for _, e := range errs {
		if strings.Contains(e.Error, contracts.IncompleteSigNozRejected) {
			return contracts.IncompleteSigNozRejected + " (" + e.Error + ")"
		}
	}
	for _, e := range errs {
		if strings.Contains(e.Error, contracts.IncompleteSigNozUnreachable) {
			return contracts.IncompleteSigNozUnreachable + " (" + e.Error + ")"
		}
	}
	return ""
}

// investigate returns the claims (nil when there is no answer) and the
// incomplete reason ("" when within budget).
func (r *run) investigate(ctx, ictx context.Context) ([]contracts.Claim, string, error) {
	if reason, err := r.minimumPlan(ctx, ictx); reason != "" || err != nil {
		return nil, reason, err
	}
	for {
		if reason, err := r.stop(ctx, ictx); reason != "" || err != nil {
			return nil, reason, err
		}
		if r.report.Iterations >= r.d.Budget.MaxIterations {
			return nil, ReasonIterations, nil
		}
		ans, reason, err := r.ask(ctx, ictx)
		if reason != "" || err != nil {
			return nil, reason, err
		}
		overBudget := r.d.Budget.MaxTokens > 0 && r.report.TokensIn+r.report.TokensOut > r.d.Budget.MaxTokens
		if len(ans.Calls) == 0 {
			claims := r.final(ans)
			if overBudget {
				return claims, ReasonTokens, nil
			}
			return claims, "", nil
		}
		if overBudget || r.budgetFinal {
			return nil, ReasonTokens, nil
		}
		if ended, err := r.turn(ctx, ictx, ans); ended {
			return nil, ReasonWallTime, err
		}
		if r.repeats >= r.d.Budget.MaxRepeats {
			return nil, ReasonLoop, nil
		}
	}
}

// minimumPlan runs the minimum evidence plan, one call an iteration; a
// failed call is recorded for the model, not fatal.
//
// When the alerted service's overview names another service as the origin of
// its failures, the deployment-marker iteration also queries the origin's
// markers and overview (plan.OriginSteps), inside the minimum iterations.
func (r *run) minimumPlan(ctx, ictx context.Context) (string, error) {
	origin := ""
	for _, step := range plan.Steps(r.in.Alert.Service) {
		if reason, err := r.stop(ctx, ictx); reason != "" || err != nil {
			return reason, err
		}
		r.report.Iterations++
		steps := []plan.Step{step}
		if step.Tool == contracts.ToolDeploymentMarkers && origin != "" {
			steps = append(steps, plan.OriginSteps(origin)...)
		}
		for _, s := range steps {
			res, err := r.call(ctx, ictx, ToolRequest{Tool: s.Tool, Arguments: s.Arguments}, true)
			if err != nil {
				return ReasonWallTime, r.fatal(ctx, ictx, err)
			}
			if res.Error != "" {
				r.planOK = false
				r.state.PlanErrors = append(r.state.PlanErrors, res)
			}
			if s.Tool == contracts.ToolServiceOverview && origin == "" && res.EvidenceID != "" {
				origin = r.originOf(res.EvidenceID)
			}
		}
	}
	return "", nil
}

// originOf is the service the overview evidence id names as the origin of
// the alerted service's failures, "" when none or the alerted one.
func (r *run) originOf(id string) string {
	for _, e := range r.state.Evidence {
		if e.ID != id || e.Facts.Origin == nil || e.Service != r.in.Alert.Service {
			continue
		}
		if o := e.Facts.Origin.Service; o != r.in.Alert.Service {
			return o
		}
	}
	return ""
}

// ask runs one model iteration and accounts for its tokens; a reason or an
// error ends the investigation.
func (r *run) ask(ctx, ictx context.Context) (Answer, string, error) {
	r.report.Iterations++
	r.state.Final = r.report.Iterations >= r.d.Budget.MaxIterations
	r.state.TokensLeft = r.d.Budget.MaxTokens - r.report.TokensIn - r.report.TokensOut
	ans, err := r.d.Model.Next(ictx, r.state)
	if errors.Is(err, ErrTokenBudget) && !r.state.Final && ictx.Err() == nil {
		// A turn with tools no longer fits what is left of the budget; a final
		// turn (no tools, answer now) is smaller and may. The model answers on
		// the evidence it has rather than the investigation ending with none;
		// tool calls in that answer end it on the budget (investigate).
		r.state.Final, r.budgetFinal = true, true
		ans, err = r.d.Model.Next(ictx, r.state)
	}
	r.report.TokensIn += ans.TokensIn
	r.report.TokensOut += ans.TokensOut
	if ans.Model != "" {
		r.report.Model = ans.Model
	}
	switch {
	case ctx.Err() != nil:
		return ans, "", fmt.Errorf("%w: %v", ErrCancelled, ctx.Err())
	case ictx.Err() != nil:
		return ans, ReasonWallTime, nil
	case errors.Is(err, ErrTokenBudget):
		return ans, ReasonTokens, nil
	case err != nil:
		return ans, ReasonModel, nil
	}
	return ans, "", nil
}

// turn runs the tool calls of one model answer, at most MaxCallsPerTurn
// (the rest are refused), and records the turn. ended is true when a call
// failed for good (err says why, or is nil when the wall time ran out).
func (r *run) turn(ctx, ictx context.Context, ans Answer) (ended bool, err error) {
	turn := Turn{Content: ans.Content}
	for i, req := range ans.Calls {
		if i >= r.d.Budget.MaxCallsPerTurn {
			turn.Results = append(turn.Results, ToolResult{Request: req, Error: fmt.Sprintf("refused: at most %d tool calls per turn", r.d.Budget.MaxCallsPerTurn)})
			continue
		}
		res, err := r.call(ctx, ictx, req, false)
		if err != nil {
			return true, r.fatal(ctx, ictx, err)
		}
		turn.Results = append(turn.Results, res)
	}
	r.state.Turns = append(r.state.Turns, turn)
	return false, nil
}

// stop reports a budget that ended before the next iteration.
func (r *run) stop(ctx, ictx context.Context) (string, error) {
	if ctx.Err() != nil {
		return "", fmt.Errorf("%w: %v", ErrCancelled, ctx.Err())
	}
	if ictx.Err() != nil {
		return ReasonWallTime, nil
	}
	return "", nil
}

// fatal classifies an error from call: shutdown and an unavailable sandbox are
// returned for redelivery; the wall-time budget is not an error.
func (r *run) fatal(ctx, ictx context.Context, err error) error {
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("%w: %v", ErrCancelled, ctx.Err())
	case ictx.Err() != nil && !errors.Is(err, ErrToolUnavailable):
		return nil
	case errors.Is(err, ErrToolUnavailable):
		return fmt.Errorf("investigation %s: %w", r.in.InvestigationID, err)
	default:
		return fmt.Errorf("investigation %s: %w: %w", r.in.InvestigationID, ErrToolUnavailable, err)
	}
}

// final turns a model's answer into claims with ids c1, c2, ….
func (r *run) final(ans Answer) []contracts.Claim {
	if ans.Claims == nil {
		return parse.Claims(ans.Content, r.d.Catalogue).Claims
	}
	out := make([]contracts.Claim, 0, len(ans.Claims))
	for i, c := range ans.Claims {
		c.ID = fmt.Sprintf("c%d", i+1)
		if c.EvidenceIDs == nil {
			c.EvidenceIDs = []string{}
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return []contracts.Claim{parse.Unknown("no claim: nothing conclusive")}
	}
	return out
}

// call runs one tool call, retrying a retryable sandbox error once. Refusals
// (unknown tool, repeated call) never reach the sandbox.
func (r *run) call(ctx, ictx context.Context, req ToolRequest, planned bool) (ToolResult, error) {
	res := ToolResult{Request: req}
	if !knownTool(req.Tool) {
		res.Error = fmt.Sprintf("unknown tool %q", req.Tool)
		return res, nil
	}
	key := req.Tool + " " + canonical(req.Arguments)
	if prev, ok := r.seen[key]; ok && !planned {
		r.repeats++
		res.Error = "refused: identical to an earlier call (" + prev + "); use the evidence already gathered"
		return res, nil
	}
	for attempt := 0; ; attempt++ {
		r.callSeq++
		call := contracts.ToolCallV1{
			CallID:          fmt.Sprintf("%s-call-%d", r.in.InvestigationID, r.callSeq),
			InvestigationID: r.in.InvestigationID, IncidentID: r.in.Alert.IncidentID,
			Tool: req.Tool, Arguments: req.Arguments, Alert: r.in.AlertEnvelope,
		}
		r.report.ToolCalls++
		reply, err := r.d.Tools.Call(ictx, call)
		if err != nil {
			return res, err
		}
		if !reply.OK {
			if reply.Retryable && attempt == 0 && ictx.Err() == nil {
				continue
			}
			res.Error = "tool error: " + reply.Error
			r.seen[key] = res.Error
			return res, nil
		}
		ev := reply.Evidence
		if ev.InvestigationID != r.in.InvestigationID || ev.Tool != req.Tool || ev.ID == "" {
			res.Error = "tool error: the sandbox returned evidence of another call"
			return res, nil
		}
		res.EvidenceID = ev.ID
		r.seen[key] = "evidence " + ev.ID
		if !slices.ContainsFunc(r.state.Evidence, func(e Evidence) bool { return e.ID == ev.ID }) {
			r.state.Evidence = append(r.state.Evidence, Evidence{EvidenceV1: ev, Envelope: reply.Envelope})
			r.report.EvidenceRefs = append(r.report.EvidenceRefs, reply.Ref)
		}
		return res, nil
	}
}

func knownTool(name string) bool {
	return slices.ContainsFunc(contracts.ToolSpecs(), func(s contracts.ToolSpec) bool { return s.Name == name })
}

// canonical renders JSON arguments with sorted keys so that reordered but
// identical calls are recognised by the loop breaker.
func canonical(args json.RawMessage) string {
	var v any
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return string(args)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return string(args)
	}
	return string(b)
}
