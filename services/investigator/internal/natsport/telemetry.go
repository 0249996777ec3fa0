package natsport

import (
	"context"
	"time"

	"agentk/contracts"
	"agentk/platform/bus"
	"agentk/services/investigator/internal/loop"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// ScopeName is the instrumentation scope of the investigator's spans and
// metrics.
const ScopeName = "agentk/services/investigator"

// Telemetry records the investigation span (a child of the alert's
// delivery), one span per tool call and per model call (OpenTelemetry GenAI
// conventions: gen_ai.* attributes, token usage), and the metrics
// agentk.investigator.investigations{completed}, agentk.investigator.duration
// (s), agentk.investigator.tool_calls{tool,ok}, gen_ai.client.token.usage
// {gen_ai.token.type} and gen_ai.client.operation.duration (s).
type Telemetry struct {
	tracer         trace.Tracer
	investigations metric.Int64Counter
	duration       metric.Float64Histogram
	toolCalls      metric.Int64Counter
	tokens         metric.Int64Histogram
	opDuration     metric.Float64Histogram
	// Provider is gen_ai.provider.name of model calls ("" for the offline
	// rules investigator, whose calls carry no gen_ai attributes).
	Provider string
}

// NewTelemetry builds the instruments from the providers.
func NewTelemetry(tp trace.TracerProvider, mp metric.MeterProvider, provider string) (*Telemetry, error) {
	m := mp.Meter(ScopeName)
	t := &Telemetry{tracer: tp.Tracer(ScopeName), Provider: provider}
	var errs [5]error
	t.investigations, errs[0] = m.Int64Counter("agentk.investigator.investigations", metric.WithDescription("Investigations finished, by completed and investigator."))
	t.duration, errs[1] = m.Float64Histogram("agentk.investigator.duration", metric.WithUnit("s"), metric.WithDescription("Wall time of one investigation."))
	t.toolCalls, errs[2] = m.Int64Counter("agentk.investigator.tool_calls", metric.WithDescription("Tool calls made through the sandbox, by tool and outcome."))
	t.tokens, errs[3] = m.Int64Histogram("gen_ai.client.token.usage", metric.WithUnit("{token}"), metric.WithDescription("Tokens used per model call."),
		metric.WithExplicitBucketBoundaries(1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576))
	t.opDuration, errs[4] = m.Float64Histogram("gen_ai.client.operation.duration", metric.WithUnit("s"), metric.WithDescription("Duration of one model call."))
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return t, nil
}

// Handle wraps the alert handler in the investigator.investigate span and
// records the investigation's metrics from the report it sealed.
func (t *Telemetry) Handle(next bus.HandlerFunc) bus.HandlerFunc {
	return func(ctx context.Context, m bus.Message) ([]bus.Out, error) {
		start := time.Now()
		return bus.Traced(t.tracer, "investigator.investigate", next, func(ctx context.Context, span trace.Span, o bus.Out) {
			rep, ok := bus.Sealed[contracts.ReportV1](o, contracts.SubjectReport)
			if !ok {
				return
			}
			span.SetAttributes(
				attribute.String("agentk.incident_id", rep.IncidentID),
				attribute.String("agentk.investigation_id", rep.InvestigationID),
				attribute.String("agentk.investigator", rep.Investigator),
				attribute.Bool("agentk.investigation.completed", rep.Completed),
				attribute.Int("agentk.investigation.iterations", rep.Iterations),
				attribute.Int("agentk.investigation.tool_calls", rep.ToolCalls),
				attribute.Int("gen_ai.usage.input_tokens", rep.TokensIn),
				attribute.Int("gen_ai.usage.output_tokens", rep.TokensOut),
			)
			a := metric.WithAttributes(attribute.Bool("completed", rep.Completed), attribute.String("investigator", rep.Investigator))
			t.investigations.Add(ctx, 1, a)
			t.duration.Record(ctx, time.Since(start).Seconds(), a)
		})(ctx, m)
	}
}

// Tools wraps a ToolCaller with one investigator.tool_call span per call.
func (t *Telemetry) Tools(next loop.ToolCaller) loop.ToolCaller { return tracedTools{t, next} }

type tracedTools struct {
	t    *Telemetry
	next loop.ToolCaller
}

func (tt tracedTools) Call(ctx context.Context, call contracts.ToolCallV1) (loop.Reply, error) {
	ctx, span := tt.t.tracer.Start(ctx, "execute_tool "+call.Tool, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "execute_tool"),
		attribute.String("gen_ai.tool.name", call.Tool),
		attribute.String("gen_ai.tool.call.id", call.CallID),
	))
	defer span.End()
	r, err := tt.next.Call(ctx, call)
	ok := err == nil && r.OK
	switch {
	case err != nil:
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	case !r.OK:
		span.SetStatus(codes.Error, r.Error)
	default:
		span.SetAttributes(attribute.String("agentk.evidence_id", r.Evidence.ID))
	}
	tt.t.toolCalls.Add(ctx, 1, metric.WithAttributes(attribute.String("tool", call.Tool), attribute.Bool("ok", ok)))
	return r, err
}

// Model wraps a Model with one span per call: "chat <model>" with gen_ai.*
// attributes and token usage for an LLM, "investigator.rules" for the
// offline investigator.
func (t *Telemetry) Model(next loop.Model) loop.Model { return tracedModel{t, next} }

type tracedModel struct {
	t    *Telemetry
	next loop.Model
}

func (tm tracedModel) Next(ctx context.Context, s loop.State) (loop.Answer, error) {
	start := time.Now()
	name := "investigator.rules"
	if tm.t.Provider != "" {
		name = "chat"
	}
	ctx, span := tm.t.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.Int("agentk.investigation.turn", len(s.Turns)), attribute.Bool("agentk.investigation.final", s.Final)))
	defer span.End()
	a, err := tm.next.Next(ctx, s)
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	if tm.t.Provider == "" {
		return a, err
	}
	if a.Model != "" {
		span.SetName("chat " + a.Model)
	}
	common := []attribute.KeyValue{
		attribute.String("gen_ai.operation.name", "chat"),
		attribute.String("gen_ai.provider.name", tm.t.Provider),
		attribute.String("gen_ai.request.model", a.Model),
	}
	span.SetAttributes(common...)
	span.SetAttributes(
		attribute.String("gen_ai.response.model", a.Model),
		attribute.Int("gen_ai.usage.input_tokens", a.TokensIn),
		attribute.Int("gen_ai.usage.output_tokens", a.TokensOut),
		attribute.Int("agentk.investigation.tool_calls_requested", len(a.Calls)),
	)
	tm.t.opDuration.Record(ctx, time.Since(start).Seconds(), metric.WithAttributes(common...))
	if err == nil {
		tm.t.tokens.Record(ctx, int64(a.TokensIn), metric.WithAttributes(append(common, attribute.String("gen_ai.token.type", "input"))...))
		tm.t.tokens.Record(ctx, int64(a.TokensOut), metric.WithAttributes(append(common, attribute.String("gen_ai.token.type", "output"))...))
	}
	return a, err
}

// DefaultTelemetry builds Telemetry from the global providers (installed by
// the process before services start).
func DefaultTelemetry(provider string) (*Telemetry, error) {
	return NewTelemetry(otel.GetTracerProvider(), otel.GetMeterProvider(), provider)
}
