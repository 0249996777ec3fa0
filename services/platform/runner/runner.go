// Package runner runs one agentk service as its own process: the body of every
// services/<name>/cmd/<name>/main.go. It joins AGENTK_NATS_URL with the role's
// identity from AGENTK_KEYS_DIR (its own seed and keyring.json are enough),
// installs telemetry, serves /<role>/healthz and /<role>/readyz on
// AGENTK_HEALTH_ADDR, and runs the service until SIGINT or SIGTERM, when the
// service finishes its in-flight messages before the connection drains.
package runner

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"agentk/platform/bus"
	"agentk/platform/config"
	"agentk/platform/fabric"
	"agentk/platform/health"
	"agentk/platform/service"
	"agentk/platform/telemetry"
)

// ErrConfig is returned when the process's own variables are missing or bad.
// Main prefixes it with the service ("gate: invalid configuration: …").
var ErrConfig = errors.New("invalid configuration")

// ErrNotRegistered is returned for a role no imported service registered
// (platform/service.Register): the binary does not import its package.
var ErrNotRegistered = errors.New("not a registered service")

// Main runs the registered service role and exits: 0 after a clean stop, 1
// on an error (printed to stderr). The binary imports the service's package,
// whose register.go registers it.
func Main(role string) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := RunRegistered(ctx, role, os.Getenv)
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", role, err)
		os.Exit(1)
	}
}

// RunRegistered is Run with the registered service role's Run: what
// `services/<name>/cmd/<name>` and `agentk <service>` both start.
func RunRegistered(ctx context.Context, role string, getenv func(string) string) error {
	r, ok := service.Lookup(role)
	if !ok {
		return fmt.Errorf("%w: %q", ErrNotRegistered, role)
	}
	return Run(ctx, role, r.Run, getenv)
}

// Run is Main without the process: it returns when ctx ends or the service fails.
func Run(ctx context.Context, role string, run service.Func, getenv func(string) string) error {
	env := config.New(getenv)
	g := config.GlobalFromEnv(env)
	healthAddr := env.String(config.EnvHealthAddr, config.DefaultHealthAddr, "health endpoint listen address")
	busCfg := bus.ConfigFromEnv(env)
	if err := env.Err(); err != nil {
		return err
	}
	if g.NATSURL == "" {
		return fmt.Errorf("%w: AGENTK_NATS_URL is required to run %s on its own (agentk up runs every service on embedded NATS)", ErrConfig, role)
	}
	// The fabric tags the service's logger with the service (the one place
	// the `service` key is added); until there is one, log untagged.
	base := g.Logger(os.Stderr)
	log := base
	tp, err := telemetry.Setup(ctx, role, getenv)
	if err != nil {
		return err
	}
	defer func() { _ = tp.Shutdown(context.WithoutCancel(ctx)) }()

	f, err := fabric.Remote(ctx, g.NATSURL, g.KeysDir, fabric.Options{Logger: base, Bus: busCfg})
	if err != nil {
		return err
	}
	defer func() {
		if err := f.Close(); err != nil {
			log.Warn("draining the bus connection", "err", err)
		}
	}()
	d, err := f.Deps(ctx, role, func() time.Time { return time.Now().UTC() }, getenv)
	if err != nil {
		return err
	}
	log = d.Logger
	mux := health.NewMux()
	check := mux.Add(health.New(role, d.Bus.Connected))
	d.Ready = func() { check.Ready(); log.Info("ready") }
	d.Dependency = check.Dependency
	d.Mode = check.Mode
	hs := &http.Server{Addr: healthAddr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := hs.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("health endpoint stopped", "addr", healthAddr, "err", err)
		}
	}()
	defer func() { _ = hs.Close() }()
	return run(ctx, d)
}
