// Package marker emits deployment.marker spans, with the deployed service as
// the span's resource service.name: the same signal the gate and the sandbox
// look for after any deployment (INCIDENT-FORMAT.md). The deployer emits one
// for each of its verified rollbacks, and one for each deployment its ledger
// watcher sees (rollback.Deployer.Follow), through Async.
package marker

import (
	"context"
	"log/slog"
	"sync"

	"agentk/services/deployer/internal/rollback"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// OTel exports markers through Exporter. Each mark gets a provider whose
// resource is the deployed service, so the marker is that service's span.
type OTel struct {
	Exporter sdktrace.SpanExporter
	Logger   *slog.Logger
}

// Mark implements rollback.Marker: it exports the marker and logs the
// outcome (an export error at Error; the marker is not retried beyond the
// exporter's own retries).
func (o OTel) Mark(ctx context.Context, m rollback.Mark) {
	err := o.Export(ctx, m)
	if o.Logger == nil {
		return
	}
	args := []any{"incident_service", m.Service, "version", m.Version, "previous_version", m.PreviousVersion,
		"deployment_id", m.DeploymentID, "kind", m.Kind, "at", m.At}
	if err != nil {
		o.Logger.ErrorContext(ctx, "deployment marker NOT exported", append(args, "err", err)...)
		return
	}
	o.Logger.InfoContext(ctx, "deployment marker emitted", args...)
}

// Export builds m's span, timestamped m.At, and exports it; it returns the
// exporter's error.
func (o OTel) Export(ctx context.Context, m rollback.Mark) error {
	var ended collector
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithSpanProcessor(&ended),
		sdktrace.WithResource(resource.NewSchemaless(
			attribute.String("service.name", m.Service),
			attribute.String("service.version", m.Version),
			attribute.String("service.namespace", m.Project),
		)),
	)
	_, span := tp.Tracer("agentk/deployer").Start(ctx, "deployment.marker",
		trace.WithTimestamp(m.At), trace.WithAttributes(attributes(m)...), trace.WithNewRoot())
	span.End(trace.WithTimestamp(m.At))
	// The provider is not shut down: that would shut the shared exporter.
	return o.Exporter.ExportSpans(ctx, ended.spans())
}

// attributes are the marker's span attributes; the optional ones only when set.
func attributes(m rollback.Mark) []attribute.KeyValue {
	attrs := []attribute.KeyValue{
		attribute.String("deployment.version", m.Version),
		attribute.String("deployment.id", m.DeploymentID),
		attribute.String("deployment.kind", m.Kind),
		attribute.String("container.image.name", m.Image),
		attribute.String("container.image.id", m.ImageID),
	}
	for _, kv := range []struct{ k, v string }{
		{"deployment.previous_version", m.PreviousVersion}, {"deployment.actor", m.Actor}, {"container.id", m.ContainerID},
	} {
		if kv.v != "" {
			attrs = append(attrs, attribute.String(kv.k, kv.v))
		}
	}
	return attrs
}

// collector keeps the spans that ended, for Export to hand to the exporter
// itself (and so see its error, which a syncer processor would swallow).
type collector struct {
	mu    sync.Mutex
	ended []sdktrace.ReadOnlySpan
}

func (c *collector) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (c *collector) OnEnd(s sdktrace.ReadOnlySpan) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ended = append(c.ended, s)
}
func (c *collector) Shutdown(context.Context) error   { return nil }
func (c *collector) ForceFlush(context.Context) error { return nil }

func (c *collector) spans() []sdktrace.ReadOnlySpan {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]sdktrace.ReadOnlySpan(nil), c.ended...)
}
