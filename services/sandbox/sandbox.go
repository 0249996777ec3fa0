// Package sandbox is the only agentk service that holds a SigNoz key. It runs
// allowlisted, bounded, read-only telemetry tools for the investigator and
// records every result as signed evidence.
package sandbox

import (
	"context"
	"fmt"
	"net/http"

	"agentk/platform/service"
	"agentk/services/sandbox/internal/compact"
	"agentk/services/sandbox/internal/config"
	"agentk/services/sandbox/internal/executor"
	"agentk/services/sandbox/internal/fieldtool"
	"agentk/services/sandbox/internal/mcpbackend"
	"agentk/services/sandbox/internal/natsport"
	"agentk/services/sandbox/internal/signoz"
	"agentk/services/sandbox/internal/tools"
)

// Run serves tool calls until ctx is done. It calls d.Ready once serving.
func Run(ctx context.Context, d service.Deps) error {
	cfg, err := config.FromEnv(d.Getenv, nil)
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	log := d.Logger // tagged with the service by the fabric
	log.Info("sandbox configured", "config", cfg.String())
	direct := &signoz.Client{BaseURL: cfg.SigNozURL, APIKey: cfg.APIKey, Auth: cfg.Auth,
		HTTP: &http.Client{Timeout: cfg.Timeout, Transport: signoz.TracedTransport(nil)}}
	var query executor.Querier = direct
	var fields fieldtool.Querier = direct
	if cfg.Backend == config.BackendMCP {
		mc, err := mcpbackend.New(mcpbackend.Config{
			Command: cfg.MCPCommand, Args: cfg.MCPArgs, URL: cfg.MCPURL,
			SigNozURL: cfg.SigNozURL, APIKey: cfg.APIKey, Auth: cfg.Auth, Timeout: cfg.Timeout,
			HTTP: &http.Client{Transport: signoz.TracedTransport(nil)},
		})
		if err != nil {
			return fmt.Errorf("sandbox: %w", err)
		}
		defer func() { _ = mc.Close() }()
		query, fields = mc, mc
	}
	ex := &executor.Executor{
		Keyring: d.Keyring, Signer: d.Signer, Now: d.Now, Logger: log,
		Query:    query,
		Record:   natsport.Recorder{Bus: d.Bus},
		Limits:   tools.DefaultLimits(cfg.Exclude),
		Compact:  compact.DefaultLimits,
		LinkBase: cfg.LinkBaseURL,
		MaxCalls: cfg.MaxCalls,
		Fields:   fields,
	}
	stop, err := natsport.Serve(ctx, d.Bus, ex)
	if err != nil {
		return fmt.Errorf("sandbox: serve: %w", err)
	}
	if d.Ready != nil {
		d.Ready()
	}
	<-ctx.Done()
	if err := stop(); err != nil {
		return fmt.Errorf("sandbox: stop: %w", err)
	}
	return nil
}
