// Package gate is the policy gate service: it consumes reviews, decides with
// plain Go whether a rollback may go to a human for approval, and publishes
// every decision, allowed or denied, signed.
package gate

import (
	"context"
	"errors"
	"fmt"

	"go.opentelemetry.io/otel"

	"agentk/contracts"
	"agentk/platform/evidence"
	"agentk/platform/service"
	"agentk/platform/topology"
	"agentk/services/gate/internal/config"
	"agentk/services/gate/internal/natsport"
)

// ErrStart is returned by Run when the gate cannot start consuming.
// Every service's root file opens this way on purpose (its own ErrStart,
// then Run reading its config.FromEnv): what they share, starting and
// stopping the consumer, is platform/service's Consume; the rest is each
// service's own wiring.
var ErrStart = errors.New("gate: start")

// Run reads the configuration from d.Getenv, consumes SubjectReview with the
// durable handler "gate" and publishes one signed decision per review. It
// calls d.Ready once the consumer pulls and blocks until ctx is done.
func Run(ctx context.Context, d service.Deps) error {
	cfg, err := config.FromEnv(d.Getenv)
	if err != nil {
		return err // already "<service>: invalid configuration: …"
	}
	log := d.Logger
	if len(cfg.Policy.SandboxServices) == 0 {
		log.Warn("no sandbox services configured: every decision will deny", "env", config.EnvSandboxServices)
	}
	cool, err := d.Bus.KeyValue(ctx, topology.BucketCooldown)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrStart, err)
	}
	rel, err := d.Bus.KeyValue(ctx, topology.BucketReleases)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrStart, err)
	}
	frz, err := d.Bus.KeyValue(ctx, topology.BucketFreezes)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrStart, err)
	}
	evs, err := d.Bus.KeyValue(ctx, topology.BucketEvidence)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrStart, err)
	}
	tel, err := natsport.NewTelemetry(otel.GetTracerProvider(), otel.GetMeterProvider())
	if err != nil {
		return fmt.Errorf("%w: %w", ErrStart, err)
	}
	h := &natsport.Handler{
		Keyring: d.Keyring, Signer: d.Signer, Now: d.Now, Config: cfg.Policy,
		Cooldowns: cool, Releases: rel, Freezes: frz, Evidence: evidence.NewResolver(d.Keyring, evs), Logger: log, Telemetry: tel,
		Deliveries: d.Bus.Config().MaxDeliver,
	}
	r, err := d.Bus.NewRouter(log)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrStart, err)
	}
	r.Handle(natsport.HandlerName, contracts.SubjectReview, h.Handle)

	return service.Consume(ctx, d, r, func() {
		log.Info("gate consuming", "subject", contracts.SubjectReview, "sandbox_services", cfg.Policy.SandboxServices,
			"shadow_all", cfg.Policy.ShadowAll, "shadow_services", cfg.Policy.ShadowServices)
	})
}
