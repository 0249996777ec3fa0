package dockerrt

import (
	"context"
	"os/exec"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// composeSpan starts the span of one compose run, a subprocess the Docker
// client's own spans (otelhttp inside github.com/docker/docker/client, on
// the global provider) do not cover.
func composeSpan(ctx context.Context, argv []string) trace.Span {
	_, span := otel.Tracer("agentk/services/deployer").Start(ctx, "docker compose up", trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.StringSlice("process.command_args", argv)))
	return span
}

func endCompose(span trace.Span, cmd *exec.Cmd, err error) {
	if cmd.ProcessState != nil {
		span.SetAttributes(attribute.Int("process.exit.code", cmd.ProcessState.ExitCode()))
	}
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}
