package telemetry

import (
	"context"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/embedded"
)

// routing is the tracer provider of a process running several services: one
// SDK provider per role (its own resource, so SigNoz shows seven services,
// not one) and a default one for spans started outside any service. A span
// goes to the provider of the role its parent context is marked with
// (WithService).
type routing struct {
	embedded.TracerProvider
	def *sdktrace.TracerProvider
	by  map[string]*sdktrace.TracerProvider
}

// Tracer implements trace.TracerProvider.
func (p *routing) Tracer(name string, opts ...trace.TracerOption) trace.Tracer {
	return &routingTracer{p: p, name: name, opts: opts}
}

type routingTracer struct {
	embedded.Tracer
	p    *routing
	name string
	opts []trace.TracerOption
}

// Start implements trace.Tracer.
func (t *routingTracer) Start(ctx context.Context, name string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	tp := t.p.def
	if s, ok := t.p.by[ServiceFrom(ctx)]; ok {
		tp = s
	}
	return tp.Tracer(t.name, t.opts...).Start(ctx, name, opts...)
}

// sharedExporter lets several providers batch into one exporter: their
// Shutdown leaves it running, Providers.Shutdown stops it last.
type sharedExporter struct{ sdktrace.SpanExporter }

func (sharedExporter) Shutdown(context.Context) error { return nil }
