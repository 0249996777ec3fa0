package replay

import (
	"context"
	"time"

	"agentk/platform/service"
	"agentk/platform/telemetry"
)

// setupTelemetry installs one tracer provider per service from vars (see
// Options.Telemetry); the returned function flushes and stops them, after the
// services have stopped (deferred before the stack starts).
func setupTelemetry(ctx context.Context, vars map[string]string) (func(), error) {
	// The stack's import registers every service: their roles are the
	// registry's.
	p, err := telemetry.SetupServices(ctx, service.Roles(), func(k string) string { return vars[k] })
	if err != nil {
		return nil, err
	}
	return func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		_ = p.Shutdown(sctx)
	}, nil
}
