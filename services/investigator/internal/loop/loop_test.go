package loop_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/services/investigator/internal/loop"
	"agentk/services/investigator/internal/loop/looptest"
	"agentk/services/investigator/internal/plan"

	"github.com/stretchr/testify/require"
)

// scriptModel answers with the next function in its script each turn.
type scriptModel struct {
	turns  []func(s loop.State) (loop.Answer, error)
	states []loop.State
}

func (m *scriptModel) Next(_ context.Context, s loop.State) (loop.Answer, error) {
	m.states = append(m.states, s)
	i := len(m.states) - 1
	if i >= len(m.turns) {
		i = len(m.turns) - 1
	}
	return m.turns[i](s)
}

func answer(content string, in, out int) func(loop.State) (loop.Answer, error) {
	return func(loop.State) (loop.Answer, error) {
		return loop.Answer{Content: content, TokensIn: in, TokensOut: out, Model: "m"}, nil
	}
}

// finalOnly refuses a turn with tools as over the token budget, as the LLM
// client does when only a final turn (no tools, a smaller request) fits what
// is left, and answers the final turn with next.
func finalOnly(next func(loop.State) (loop.Answer, error)) func(loop.State) (loop.Answer, error) {
	return func(s loop.State) (loop.Answer, error) {
		if !s.Final {
			return loop.Answer{}, loop.ErrTokenBudget
		}
		return next(s)
	}
}

func calls(args string, tools ...string) func(loop.State) (loop.Answer, error) {
	return func(loop.State) (loop.Answer, error) {
		var cs []loop.ToolRequest
		for i, t := range tools {
			cs = append(cs, loop.ToolRequest{ID: "call_" + string(rune('a'+i)), Tool: t, Arguments: json.RawMessage(args)})
		}
		return loop.Answer{Calls: cs, TokensIn: 100, TokensOut: 10, Model: "m"}, nil
	}
}

func input() loop.Input {
	return loop.Input{
		InvestigationID: "inv-1",
		Alert:           contracts.AlertV1{IncidentID: "inc-1", Status: contracts.AlertFiring, Service: "shop-api"},
		AlertEnvelope:   json.RawMessage(`{"signed":"alert"}`),
		Investigator:    "llm",
	}
}

func deps(sb loop.ToolCaller, m loop.Model) loop.Deps {
	return loop.Deps{Tools: sb, Model: m, Now: func() time.Time { return looptest.Base }, Catalogue: contracts.DefaultCatalogue(), Budget: loop.DefaultBudget()}
}

const good = `{"claims":[{"class":"retry_storm","statement":"retries exploded after v2","confidence":0.8,"evidence_ids":["ev-deployment_markers-2"]}]}`

func TestInvestigate(t *testing.T) {
	t.Parallel()
	agg := `{"service":"shop-api","aggregation":"p95","field":"duration_nano","group_by":["name"]}`
	tests := []struct {
		name       string
		scenario   looptest.Scenario
		turns      []func(loop.State) (loop.Answer, error)
		budget     func(*loop.Budget)
		completed  bool
		reason     string
		class      string
		iterations int
		toolCalls  int
	}{
		{name: "answers after the plan", scenario: looptest.RetryStorm(), turns: []func(loop.State) (loop.Answer, error){answer(good, 900, 60)},
			completed: true, class: "retry_storm", iterations: 5, toolCalls: 4},
		{name: "one model tool call then answers", scenario: looptest.RetryStorm(), turns: []func(loop.State) (loop.Answer, error){calls(agg, contracts.ToolAggregateTraces), answer(good, 900, 60)},
			completed: true, class: "retry_storm", iterations: 6, toolCalls: 5},
		{name: "unparseable answer is one unknown claim", scenario: looptest.RetryStorm(), turns: []func(loop.State) (loop.Answer, error){answer("it is a retry storm, trust me", 900, 20)},
			completed: true, class: contracts.ClassUnknown, iterations: 5, toolCalls: 4},
		{name: "iteration budget", scenario: looptest.RetryStorm(), turns: []func(loop.State) (loop.Answer, error){calls(agg, contracts.ToolAggregateTraces), calls(`{"service":"shop-api","limit":5}`, contracts.ToolErrorTraces), calls(`{"service":"shop-api","limit":6}`, contracts.ToolErrorTraces)},
			budget: func(b *loop.Budget) { b.MaxIterations = 6 }, reason: loop.ReasonIterations, class: contracts.ClassUnknown, iterations: 6, toolCalls: 6},
		{name: "token budget from usage", scenario: looptest.RetryStorm(), turns: []func(loop.State) (loop.Answer, error){answer(good, loop.DefaultBudget().MaxTokens-10, 60)},
			reason: loop.ReasonTokens, class: "retry_storm", iterations: 5, toolCalls: 4},
		{name: "token budget refused by the model", scenario: looptest.RetryStorm(), turns: []func(loop.State) (loop.Answer, error){func(loop.State) (loop.Answer, error) { return loop.Answer{}, loop.ErrTokenBudget }},
			reason: loop.ReasonTokens, class: contracts.ClassUnknown, iterations: 5, toolCalls: 4},
		{name: "a turn with tools no longer fits: the final turn answers", scenario: looptest.RetryStorm(), turns: []func(loop.State) (loop.Answer, error){calls(agg, contracts.ToolAggregateTraces), finalOnly(answer(good, 900, 60))},
			completed: true, class: "retry_storm", iterations: 6, toolCalls: 5},
		{name: "tool calls in the budget's final turn end it on the budget", scenario: looptest.RetryStorm(), turns: []func(loop.State) (loop.Answer, error){finalOnly(calls(`{"service":"shop-api","limit":5}`, contracts.ToolErrorTraces))},
			reason: loop.ReasonTokens, class: contracts.ClassUnknown, iterations: 5, toolCalls: 4},
		{name: "loop breaker on identical calls", scenario: looptest.RetryStorm(), turns: []func(loop.State) (loop.Answer, error){calls(agg, contracts.ToolAggregateTraces), calls(`{"group_by":["name"],"field":"duration_nano","aggregation":"p95","service":"shop-api"}`, contracts.ToolAggregateTraces, contracts.ToolAggregateTraces)},
			reason: loop.ReasonLoop, class: contracts.ClassUnknown, iterations: 6, toolCalls: 5},
		{name: "model error", scenario: looptest.RetryStorm(), turns: []func(loop.State) (loop.Answer, error){func(loop.State) (loop.Answer, error) { return loop.Answer{}, errors.New("llm: 500") }},
			reason: loop.ReasonModel, class: contracts.ClassUnknown, iterations: 5, toolCalls: 4},
		{name: "failed marker query fails the plan", scenario: func() looptest.Scenario {
			s := looptest.RetryStorm()
			s[contracts.ToolDeploymentMarkers] = looptest.Result{Error: "signoz: 502", Retryable: true}
			return s
		}(), turns: []func(loop.State) (loop.Answer, error){answer(good, 900, 60)},
			reason: loop.ReasonPlan, class: "retry_storm", iterations: 5, toolCalls: 5},
		{name: "unknown tool is refused without a call", scenario: looptest.RetryStorm(), turns: []func(loop.State) (loop.Answer, error){calls(`{}`, "docker_exec"), answer(good, 900, 60)},
			completed: true, class: "retry_storm", iterations: 6, toolCalls: 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sb := &looptest.Sandbox{Scenario: tc.scenario, Now: looptest.Base}
			m := &scriptModel{turns: tc.turns}
			d := deps(sb, m)
			if tc.budget != nil {
				tc.budget(&d.Budget)
			}
			rep, err := loop.Investigate(context.Background(), input(), d)
			require.NoError(t, err)
			require.Equal(t, tc.completed, rep.Completed)
			require.Equal(t, tc.reason, rep.IncompleteReason)
			require.NotEmpty(t, rep.Claims)
			require.Equal(t, tc.class, rep.Claims[0].Class)
			require.Equal(t, tc.iterations, rep.Iterations)
			require.Equal(t, tc.toolCalls, rep.ToolCalls)
			require.Equal(t, sb.Count(), rep.ToolCalls)
			require.Equal(t, "inv-1", rep.InvestigationID)
			require.JSONEq(t, `{"signed":"alert"}`, string(rep.Alert))
			// The marker query is always among the minimum iterations.
			require.Equal(t, contracts.ToolDeploymentMarkers, sb.Calls[1].Tool)
			require.Less(t, 1, plan.MinIterations)
			for _, c := range sb.Calls {
				require.Equal(t, "inv-1", c.InvestigationID)
				require.JSONEq(t, `{"signed":"alert"}`, string(c.Alert))
			}
		})
	}
}

// TestSigNozFailureIsNamedInTheReason: a plan that failed because SigNoz was
// down or refused the key says so, so the report does not read
// "insufficient evidence".
func TestSigNozFailureIsNamedInTheReason(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, err string
		retryable bool
		want      string
	}{
		{"unreachable", "SigNoz query failed: SigNoz unreachable: signoz: unavailable: dial tcp 127.0.0.1:8080: connection refused", true, contracts.IncompleteSigNozUnreachable},
		{"key rejected", "SigNoz query failed: SigNoz rejected the API key: signoz: HTTP 401: unauthenticated", false, contracts.IncompleteSigNozRejected},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := looptest.RetryStorm()
			for _, tool := range []string{contracts.ToolServiceOverview, contracts.ToolDeploymentMarkers} {
				s[tool] = looptest.Result{Error: tt.err, Retryable: tt.retryable}
			}
			sb := &looptest.Sandbox{Scenario: s, Now: looptest.Base}
			m := &scriptModel{turns: []func(loop.State) (loop.Answer, error){answer(good, 900, 60)}}
			rep, err := loop.Investigate(context.Background(), input(), deps(sb, m))
			require.NoError(t, err)
			require.False(t, rep.Completed)
			require.True(t, strings.HasPrefix(rep.IncompleteReason, loop.ReasonPlan+": "+tt.want), rep.IncompleteReason)
			require.Contains(t, rep.IncompleteReason, tt.err)
		})
	}
}

func TestModelSeesAllEvidence(t *testing.T) {
	t.Parallel()
	sb := &looptest.Sandbox{Scenario: looptest.RetryStorm(), Now: looptest.Base}
	m := &scriptModel{turns: []func(loop.State) (loop.Answer, error){calls(`{"service":"shop-api","aggregation":"count"}`, contracts.ToolAggregateTraces), answer(good, 10, 10)}}
	rep, err := loop.Investigate(context.Background(), input(), deps(sb, m))
	require.NoError(t, err)
	require.True(t, rep.Completed)
	require.Len(t, m.states, 2)
	require.Len(t, m.states[0].Evidence, 4)
	require.Len(t, m.states[1].Evidence, 5, "the second turn sees the plan's evidence and its own")
	require.Len(t, m.states[1].Turns, 1)
	require.Equal(t, m.states[1].Evidence[4].ID, m.states[1].Turns[0].Results[0].EvidenceID)
	require.Len(t, rep.EvidenceRefs, 5)
	require.Empty(t, rep.Evidence, "the report names its evidence; the sandbox stored it")
	for i, ref := range rep.EvidenceRefs {
		require.Equal(t, m.states[1].Evidence[i].ID, ref.ID)
		require.Equal(t, envelope.Digest(m.states[1].Evidence[i].Envelope), ref.Digest)
	}
	require.Equal(t, 100+10+10+10, rep.TokensIn+rep.TokensOut)
}

func TestFinalTurnIsFlagged(t *testing.T) {
	t.Parallel()
	sb := &looptest.Sandbox{Scenario: looptest.RetryStorm(), Now: looptest.Base}
	m := &scriptModel{turns: []func(loop.State) (loop.Answer, error){answer(good, 1, 1)}}
	d := deps(sb, m)
	d.Budget.MaxIterations = plan.MinIterations + 1
	_, err := loop.Investigate(context.Background(), input(), d)
	require.NoError(t, err)
	require.True(t, m.states[0].Final)
}

func TestSandboxDownIsRedelivered(t *testing.T) {
	t.Parallel()
	sb := &looptest.Sandbox{Scenario: looptest.RetryStorm(), Now: looptest.Base, Down: true}
	_, err := loop.Investigate(context.Background(), input(), deps(sb, &scriptModel{turns: []func(loop.State) (loop.Answer, error){answer(good, 1, 1)}}))
	require.ErrorIs(t, err, loop.ErrToolUnavailable)
}

func TestCancelledIsNotReported(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	sb := &looptest.Sandbox{Scenario: looptest.RetryStorm(), Now: looptest.Base}
	_, err := loop.Investigate(ctx, input(), deps(sb, &scriptModel{turns: []func(loop.State) (loop.Answer, error){answer(good, 1, 1)}}))
	require.ErrorIs(t, err, loop.ErrCancelled)
}

// blockingModel waits for its context: the wall-time budget must end it.
type blockingModel struct{}

func (blockingModel) Next(ctx context.Context, _ loop.State) (loop.Answer, error) {
	<-ctx.Done()
	return loop.Answer{}, ctx.Err()
}

func TestWallTimeBudget(t *testing.T) {
	t.Parallel()
	sb := &looptest.Sandbox{Scenario: looptest.RetryStorm(), Now: looptest.Base}
	d := deps(sb, blockingModel{})
	d.Budget.WallTime = time.Millisecond
	rep, err := loop.Investigate(context.Background(), input(), d)
	require.NoError(t, err)
	require.False(t, rep.Completed)
	require.Equal(t, loop.ReasonWallTime, rep.IncompleteReason)
	require.Equal(t, contracts.ClassUnknown, rep.Claims[0].Class)
}
