package desk

import (
	"context"

	"agentk/contracts/envelope"
	"agentk/platform/telemetry/role"
	"agentk/services/bridge/internal/approval"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// ScopeName is the instrumentation scope of the bridge's spans and metrics.
const ScopeName = "agentk/services/bridge"

// traceParent returns the W3C traceparent of ctx (the decision's delivery),
// kept with the record so the approval, minutes later and from another
// request, continues the incident's trace.
func traceParent(ctx context.Context) string {
	c := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, c)
	return c["traceparent"]
}

// approvalSpan starts the bridge.approval span: a child of the decision's
// trace (rec.TraceParent), linked to whatever request carried the answer.
// Its context is the one the approval is published with.
func approvalSpan(ctx context.Context, rec approval.Record) (context.Context, trace.Span) {
	opts := []trace.SpanStartOption{trace.WithAttributes(
		attribute.String("agentk.decision_id", rec.DecisionID),
		attribute.String("agentk.incident_id", rec.Decision.IncidentID),
		attribute.String("agentk.service", rec.Decision.Service),
	)}
	if l := trace.LinkFromContext(ctx); l.SpanContext.IsValid() {
		opts = append(opts, trace.WithLinks(l))
	}
	if rec.TraceParent != "" {
		ctx = propagation.TraceContext{}.Extract(ctx, propagation.MapCarrier{"traceparent": rec.TraceParent})
	}
	if a := rec.Answer; a != nil {
		opts = append(opts, trace.WithAttributes(
			attribute.String("agentk.approval_id", a.ApprovalID),
			attribute.String("agentk.approval.answer", a.Answer),
			attribute.String("agentk.approval.channel", a.Channel),
			attribute.String("agentk.approval.approver", a.Approver),
		))
	}
	return otel.Tracer(ScopeName).Start(role.With(ctx, envelope.RoleBridge), "bridge.approval", opts...)
}

// countAnswer counts one accepted answer (agentk.bridge.approvals{answer,
// channel}).
func countAnswer(ctx context.Context, req approval.Request) {
	c, err := otel.Meter(ScopeName).Int64Counter("agentk.bridge.approvals", metric.WithDescription("Answers accepted from humans, by answer and channel."))
	if err != nil {
		return
	}
	c.Add(ctx, 1, metric.WithAttributes(attribute.String("answer", req.Answer), attribute.String("channel", req.Channel)))
}
