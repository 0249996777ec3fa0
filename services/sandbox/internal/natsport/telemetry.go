package natsport

import (
	"context"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/services/sandbox/internal/executor"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
)

// ScopeName is the instrumentation scope of the sandbox's spans and metrics.
const ScopeName = "agentk/services/sandbox"

type serveFunc func(ctx context.Context, env envelope.Envelope, md map[string]string) (envelope.Envelope, error)

// traced wraps one tool call in the sandbox.tool span (a child of the
// investigator's request) and counts it: agentk.sandbox.tool_calls{tool,ok}.
// Attributes come from the reply the sandbox itself sealed (as the executor
// returns it beside its envelope), never from the unverified request.
func traced(h func(ctx context.Context, env envelope.Envelope) (executor.Reply, error)) serveFunc {
	return func(ctx context.Context, env envelope.Envelope, _ map[string]string) (envelope.Envelope, error) {
		ctx, span := otel.Tracer(ScopeName).Start(ctx, "sandbox.tool")
		defer span.End()
		r, err := h(ctx, env)
		out := r.Envelope
		if err != nil {
			span.RecordError(err)
			span.SetStatus(codes.Error, err.Error())
			return out, err
		}
		reply := r.Value
		var ev contracts.EvidenceV1
		if r.Evidence != nil {
			ev = *r.Evidence
		}
		span.SetAttributes(
			attribute.String("gen_ai.tool.call.id", reply.CallID),
			attribute.String("gen_ai.tool.name", ev.Tool),
			attribute.String("agentk.evidence_id", ev.ID),
			attribute.String("agentk.investigation_id", ev.InvestigationID),
			attribute.Bool("agentk.tool.ok", reply.OK),
		)
		if !reply.OK {
			span.SetStatus(codes.Error, reply.Error)
		}
		if c, cerr := otel.Meter(ScopeName).Int64Counter("agentk.sandbox.tool_calls", metric.WithDescription("Tool calls answered, by tool and outcome.")); cerr == nil {
			c.Add(ctx, 1, metric.WithAttributes(attribute.String("tool", ev.Tool), attribute.Bool("ok", reply.OK)))
		}
		return out, nil
	}
}
