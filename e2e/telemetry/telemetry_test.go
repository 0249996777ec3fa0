// Package telemetry_test is issue 11's acceptance test: the pipeline comes
// up, an alert is fired at the ingester, and an in-test OTLP/HTTP receiver on
// loopback sees one trace, from the webhook to the gate's decision and the
// deployer's action, with spans from all seven services, each under its own
// service.name (agentk-<service>: one resource per service even in one
// process, telemetry.SetupServices). Nothing here ever reaches a real
// collector.
package telemetry_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"agentk/cmd/agentk/replay"
	"agentk/contracts/envelope"
	"agentk/platform/telemetry"
	"agentk/platform/telemetry/otlptest"

	"github.com/stretchr/testify/require"
)

func runReplay(t *testing.T, incident, investigator string, vars map[string]string) replay.Result {
	t.Helper()
	res, err := replay.Run(context.Background(), "../incidents/"+incident, replay.Options{
		Investigator: investigator, Timeout: 90 * time.Second, Telemetry: vars,
	})
	require.NoError(t, err)
	return res
}

// Not parallel: a replay with Telemetry installs the process's otel globals.
func TestOneTraceFromWebhookToAction(t *testing.T) {
	cases := []struct {
		name, incident, investigator string
		wantModelSpan                bool
	}{
		{name: "offline rules investigator, allowed and rolled back", incident: "retry-storm-01", investigator: "rules"},
		{name: "LLM investigator (scripted oracle): gen_ai spans and token usage", incident: "bad-release-01", investigator: "persona:oracle", wantModelSpan: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rcv := otlptest.Start()
			defer rcv.Close()
			res := runReplay(t, tc.incident, tc.investigator, map[string]string{telemetry.EnvEndpoint: rcv.URL})
			require.Empty(t, rcv.Errors())
			require.Equal(t, "allow", res.Verdict, "these incidents are allowed, so the trace reaches the action")

			spans := rcv.Spans()
			var roots []otlptest.Span
			for _, s := range spans {
				if s.Name == "POST /v1/alerts" {
					roots = append(roots, s)
				}
			}
			require.Len(t, roots, 1, "the ingester starts one root span per webhook delivery")
			root := roots[0]
			require.Empty(t, root.ParentID, "the webhook's span is the root")
			require.Equal(t, telemetry.ServiceName(envelope.RoleIngester), root.Service)

			inTrace := map[string]otlptest.Span{}
			services := map[string]bool{}
			byName := map[string][]otlptest.Span{}
			for _, s := range spans {
				if s.TraceID != root.TraceID {
					continue
				}
				inTrace[s.SpanID] = s
				services[s.Service] = true
				byName[s.Name] = append(byName[s.Name], s)
			}
			for _, r := range envelope.Roles {
				require.True(t, services[telemetry.ServiceName(r)], "a span of %s in the incident's trace (services seen: %v)", r, services)
			}
			for _, s := range inTrace {
				if s.SpanID != root.SpanID {
					_, ok := inTrace[s.ParentID]
					require.True(t, ok, "span %q (%s) has its parent in the trace", s.Name, s.Service)
				}
			}

			// The decision.
			require.Len(t, byName["gate.decide"], 1)
			decide := byName["gate.decide"][0]
			require.Equal(t, "agentk-gate", decide.Service)
			require.Equal(t, res.Verdict, decide.Attrs["agentk.gate.verdict"])
			require.Equal(t, res.DecisionID, decide.Attrs["agentk.decision_id"])
			require.Equal(t, "true", decide.Attrs["agentk.gate.check.deployment_related.passed"])

			// The human's answer, then the action, in the same trace.
			require.Len(t, byName["bridge.approval"], 1)
			require.Equal(t, "approve", byName["bridge.approval"][0].Attrs["agentk.approval.answer"])
			require.Len(t, byName["deployer.action"], 1)
			action := byName["deployer.action"][0]
			require.Equal(t, "agentk-deployer", action.Service)
			require.Equal(t, res.Action, action.Attrs["agentk.action.outcome"])

			// Each hop: investigation, tool calls through the sandbox, SigNoz queries, review.
			require.NotEmpty(t, byName["investigator.investigate"])
			require.Equal(t, strconv.Itoa(res.ToolCalls), byName["investigator.investigate"][0].Attrs["agentk.investigation.tool_calls"])
			require.NotEmpty(t, byName["sandbox.tool"])
			require.NotEmpty(t, byName["POST /api/v5/query_range"])
			require.Equal(t, "agentk-sandbox", byName["POST /api/v5/query_range"][0].Service)
			require.Len(t, byName["reviewer.review"], 1)

			var chats []otlptest.Span
			for _, s := range inTrace {
				if s.Attrs["gen_ai.operation.name"] == "chat" {
					chats = append(chats, s)
				}
			}
			metrics := rcv.MetricNames()
			if tc.wantModelSpan {
				require.NotEmpty(t, chats)
				in := 0
				for _, c := range chats {
					require.Equal(t, "agentk-investigator", c.Service)
					require.Equal(t, "chat "+c.Attrs["gen_ai.request.model"], c.Name)
					n, err := strconv.Atoi(c.Attrs["gen_ai.usage.input_tokens"])
					require.NoError(t, err)
					in += n
				}
				require.Equal(t, res.TokensIn, in, "the spans' input tokens add up to the report's")
				require.Contains(t, metrics, "gen_ai.client.token.usage")
			} else {
				require.Empty(t, chats, "the rules investigator is not a model")
			}
			for _, m := range []string{"agentk.ingester.alerts_filed", "agentk.gate.decisions", "agentk.deployer.actions",
				"agentk.investigator.duration", "agentk.investigator.investigations", "agentk.bridge.approvals"} {
				require.Contains(t, metrics, m)
			}
		})
	}
}

func TestExportDisabledSendsNothing(t *testing.T) {
	rcv := otlptest.Start()
	defer rcv.Close()
	res := runReplay(t, "retry-storm-01", "rules", map[string]string{
		telemetry.EnvEndpoint: rcv.URL, telemetry.EnvDisabled: "1",
	})
	require.Equal(t, "allow", res.Verdict)
	require.Zero(t, rcv.Requests(), "AGENTK_OTEL_DISABLED=1: nothing reaches the receiver")
}
