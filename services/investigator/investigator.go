// Package investigator is the agentk investigator service: it consumes
// ingester-signed alerts, investigates each incident through the sandbox's
// read-only tools (with the offline rules investigator or an LLM) and publishes
// one signed agentk.report.v1 per incident.
package investigator

import (
	"context"
	"errors"
	"fmt"

	"agentk/contracts"
	"agentk/platform/bus"
	"agentk/platform/service"
	"agentk/services/investigator/internal/config"
	"agentk/services/investigator/internal/llm"
	"agentk/services/investigator/internal/loop"
	"agentk/services/investigator/internal/natsport"
	"agentk/services/investigator/internal/rules"
)

// ErrStart is returned by Run when the investigator cannot start consuming.
var ErrStart = errors.New("investigator: start")

// Run runs the investigator until ctx is done. It calls d.Ready once its
// durable consumer exists. It returns the configuration's errors, all at once,
// or the router's.
func Run(ctx context.Context, d service.Deps) error {
	cfg, err := config.FromEnv(d.Getenv)
	if err != nil {
		return err // already "<service>: invalid configuration: …"
	}
	log := d.Logger
	var model loop.Model = rules.Investigator{}
	if cfg.Kind == config.KindLLM {
		model = llm.New(llm.Config{Provider: cfg.Provider, BaseURL: cfg.BaseURL, Model: cfg.Model, APIKey: cfg.APIKey,
			Timeout: cfg.LLMTimeout, RetryBackoff: cfg.LLMRetryBackoff, Logger: log})
	}
	provider := ""
	if cfg.Kind == config.KindLLM {
		provider = cfg.Provider
	}
	tel, err := natsport.DefaultTelemetry(provider)
	if err != nil {
		return fmt.Errorf("%w: telemetry: %w", ErrStart, err)
	}
	h := natsport.NewHandler(natsport.Config{
		Keyring: d.Keyring, Signer: d.Signer, Now: d.Now, Logger: log,
		Tools:        tel.Tools(natsport.Tools{Bus: d.Bus, Signer: d.Signer, Keyring: d.Keyring, Now: d.Now}),
		Model:        tel.Model(model),
		Investigator: cfg.InvestigatorName(),
		Catalogue:    contracts.DefaultCatalogue(),
		Budget:       cfg.Budget,
		Parallel:     cfg.Parallel,
	})
	router, err := d.Bus.NewRouter(log)
	if err != nil {
		return fmt.Errorf("%w: router: %w", ErrStart, err)
	}
	// The model is the wait: Parallel investigations of this replica run at once.
	router.Handle(natsport.HandlerName, contracts.SubjectAlert, tel.Handle(h.Handle), bus.Concurrency(cfg.Parallel))
	if err := service.Consume(ctx, d, router, func() { log.Info("investigator consuming", "config", cfg) }); err != nil {
		return fmt.Errorf("investigator: %w", err)
	}
	return nil
}
