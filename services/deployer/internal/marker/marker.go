// Package marker emits the deployment.marker span for a rollback, with the
// rolled-back service as the span's resource service.name: the same signal the
// gate and the sandbox look for after any deployment (INCIDENT-FORMAT.md).
package marker

import (
	"context"
	"log/slog"

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

// Mark implements rollback.Marker.
func (o OTel) Mark(ctx context.Context, m rollback.Mark) {
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithSyncer(o.Exporter),
		sdktrace.WithResource(resource.NewSchemaless(
			attribute.String("service.name", m.Service),
			attribute.String("service.version", m.Version),
			attribute.String("service.namespace", m.Project),
		)),
	)
	attrs := []attribute.KeyValue{
		attribute.String("deployment.version", m.Version),
		attribute.String("deployment.previous_version", m.PreviousVersion),
		attribute.String("deployment.id", m.DeploymentID),
		attribute.String("deployment.kind", "rollback"),
		attribute.String("deployment.actor", "agentk-deployer"),
		attribute.String("container.image.name", m.Image),
		attribute.String("container.image.id", m.ImageID),
	}
	_, span := tp.Tracer("agentk/deployer").Start(ctx, "deployment.marker",
		trace.WithTimestamp(m.At), trace.WithAttributes(attrs...), trace.WithNewRoot())
	span.End(trace.WithTimestamp(m.At))
	// The syncer exported it at End; the provider is not shut down because
	// that would shut the shared exporter.
	if o.Logger != nil {
		o.Logger.InfoContext(ctx, "deployment marker emitted", "incident_service", m.Service, "version", m.Version,
			"previous_version", m.PreviousVersion, "deployment_id", m.DeploymentID)
	}
}
