// Package sandbox is the only agentk service that holds a SigNoz key. It runs
// allowlisted, bounded, read-only telemetry tools for the investigator and
// records every result as signed evidence.
package sandbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"agentk/platform/service"
	"agentk/platform/topology"
	"agentk/services/sandbox/internal/compact"
	"agentk/services/sandbox/internal/config"
	"agentk/services/sandbox/internal/executor"
	"agentk/services/sandbox/internal/fieldtool"
	"agentk/services/sandbox/internal/mcpbackend"
	"agentk/services/sandbox/internal/natsport"
	"agentk/services/sandbox/internal/signoz"
	"agentk/services/sandbox/internal/tools"
)

// ErrStart is returned by Run when the sandbox cannot start serving.
var ErrStart = errors.New("sandbox: start")

// Run serves tool calls until ctx is done. It calls d.Ready once serving.
func Run(ctx context.Context, d service.Deps) error {
	cfg, err := config.FromEnv(d.Getenv, nil)
	if err != nil {
		return err // already "sandbox: invalid configuration: …"
	}
	log := d.Logger // tagged with the service by the fabric
	log.Info("sandbox configured", "config", cfg.String())
	pool := signozTransport()
	defer pool.CloseIdleConnections()
	direct := &signoz.Client{BaseURL: cfg.SigNozURL, APIKey: cfg.APIKey, Auth: cfg.Auth,
		HTTP: &http.Client{Timeout: cfg.Timeout, Transport: signoz.TracedTransport(pool)}}
	var query executor.Querier = direct
	var fields fieldtool.Querier = direct
	var rules executor.RuleReader = direct
	if cfg.Backend == config.BackendMCP {
		mc, err := mcpbackend.New(mcpbackend.Config{
			Command: cfg.MCPCommand, Args: cfg.MCPArgs, URL: cfg.MCPURL, Env: cfg.MCPEnv,
			SigNozURL: cfg.SigNozURL, APIKey: cfg.APIKey, Auth: cfg.Auth, Timeout: cfg.Timeout,
			HTTP: &http.Client{Transport: signoz.TracedTransport(nil)},
		})
		if err != nil {
			return fmt.Errorf("%w: %w", ErrStart, err)
		}
		defer func() { _ = mc.Close() }()
		query, fields, rules = mc, mc, mc
	}
	store, err := d.Bus.KeyValue(ctx, topology.BucketEvidence)
	if err != nil {
		return fmt.Errorf("%w: bucket %s (provisioned by `agentk provision`): %w", ErrStart, topology.BucketEvidence, err)
	}
	ex := &executor.Executor{
		Keyring: d.Keyring, Signer: d.Signer, Now: d.Now, Logger: log,
		Query:    query,
		Record:   natsport.Recorder{Bus: d.Bus, Store: store},
		Limits:   tools.DefaultLimits(cfg.Exclude),
		Compact:  compact.DefaultLimits,
		LinkBase: cfg.LinkBaseURL,
		MaxCalls: cfg.MaxCalls,
		Fields:   fields,
		Rules:    rules,
	}
	stop, err := natsport.Serve(ctx, d.Bus, ex)
	if err != nil {
		return fmt.Errorf("%w: serve: %w", ErrStart, err)
	}
	d.MarkReady()
	if cfg.Backend != config.BackendMCP {
		// On the MCP route the sandbox may not reach SigNoz itself: the MCP
		// server does, and a failing call says so in the tool's reply.
		go probeSigNoz(ctx, direct, d, log, ProbeInterval)
	}
	<-ctx.Done()
	if err := stop(); err != nil {
		return fmt.Errorf("sandbox: stop: %w", err)
	}
	return nil
}

// signozTransport is the sandbox's connections to SigNoz's API: Go's
// default transport but for the idle connections kept, as many as a stage
// runs queries at once (executor.DefaultParallel) instead of two. With two,
// seven of service_overview's first nine queries closed their connection
// after the answer and the next stage dialled again (13 connections a
// replay instead of 9).
func signozTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = executor.DefaultParallel
	return t
}

// DependencySigNoz is the name readiness reports SigNoz under.
const DependencySigNoz = "signoz"

// ProbeInterval is how often the sandbox checks that SigNoz answers with its key.
const ProbeInterval = time.Minute

// probeSigNoz checks now and every interval that SigNoz answers with the
// key, and tells readiness: a SigNoz that is down or refuses the key makes
// the sandbox not ready (every investigation would otherwise end in
// "insufficient evidence" while /readyz said all is well).
func probeSigNoz(ctx context.Context, c *signoz.Client, d service.Deps, log *slog.Logger, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	last := ""
	for {
		pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err := c.Probe(pctx, d.Now())
		cancel()
		if ctx.Err() != nil {
			return
		}
		d.ReportDependency(DependencySigNoz, err)
		switch {
		case err != nil && err.Error() != last:
			log.Error("signoz does not answer with the sandbox's key: investigations cannot read telemetry", "err", err)
			last = err.Error()
		case err == nil && last != "":
			log.Info("signoz answers with the sandbox's key again")
			last = ""
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
