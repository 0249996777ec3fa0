package up

import (
	"context"
	"log/slog"

	"agentk/cmd/agentk/internal/command"
	"agentk/platform/service"
	"agentk/platform/telemetry"
)

// setupTelemetry installs the process's OpenTelemetry providers from the
// OTEL_EXPORTER_OTLP_* variables (AGENTK_OTEL_DISABLED=1: built, nothing
// exported). serviceName is the role of `agentk <service>`, whose telemetry is
// exported as agentk-<service>; "" (or "up") is `agentk up`, where each
// service's spans are exported under its own agentk-<service> name and the
// rest, metrics included, under agentk. The returned function flushes and
// stops the providers: call it after the services have stopped.
func setupTelemetry(ctx context.Context, c *command.Env, serviceName string) (shutdown func(context.Context) error, err error) {
	var p *telemetry.Providers
	if serviceName == "" || serviceName == "up" {
		p, err = telemetry.SetupServices(ctx, service.Roles(), c.Getenv)
	} else {
		p, err = telemetry.Setup(ctx, serviceName, c.Getenv)
	}
	if err != nil {
		return nil, err
	}
	return p.Shutdown, nil
}

// newLogger is the process's logger: AGENTK_LOG_LEVEL, AGENTK_LOG_FORMAT (json
// or text) on stderr, with trace_id and span_id on every record logged inside
// a span, so SigNoz joins logs to traces.
func newLogger(c *command.Env) *slog.Logger {
	return slog.New(telemetry.NewTraceHandler(c.ProdLogger().Handler()))
}
