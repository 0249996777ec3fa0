// Package up runs the pipeline: `agentk up` (every service in one process),
// `agentk <service>` (one), and what a deployment needs around them: keys,
// provision (streams and buckets) and healthcheck.
package up

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"agentk/cmd/agentk/internal/command"
	"agentk/cmd/agentk/internal/configcmd"
	"agentk/cmd/agentk/stack"
	"agentk/platform/bus"
	"agentk/platform/config"
	"agentk/platform/fabric"
	"agentk/platform/identity"
	"agentk/platform/natsembed"
	"agentk/platform/runner"
	"agentk/platform/service"
)

// Commands are this package's commands, for internal/cli to register.
// Every package of commands exports them this way, on purpose: the
// composition (internal/cli) says what the command line has, in what order.
func Commands() []command.Command {
	return []command.Command{
		{Name: "up", Summary: "run every service in one process over embedded NATS (or AGENTK_NATS_URL)", Run: cmdUp},
		{Name: "keys", Summary: "create (or keep) every service's nkey and the keyring in AGENTK_KEYS_DIR", Run: cmdKeys},
		{Name: "provision", Summary: "create or update every stream and KV bucket on AGENTK_NATS_URL as the admin, then exit", Run: cmdProvision},
		{Name: "healthcheck", Summary: "exit 0 when a health URL answers 200 (for container healthchecks): agentk healthcheck <url>", Run: cmdHealthcheck},
	}
}

// ServiceCommands are `agentk <service>`: one command per registered
// service, in start order.
func ServiceCommands() []command.Command {
	var out []command.Command
	for _, role := range service.Roles() {
		out = append(out, command.Command{Name: role, Summary: "run the " + role + " service alone against AGENTK_NATS_URL", Run: func(ctx context.Context, c *command.Env, args []string) error {
			return cmdService(ctx, c, role, args)
		}})
	}
	return out
}

// openFabric joins AGENTK_NATS_URL when set, else starts the embedded server.
func openFabric(ctx context.Context, c *command.Env, log *slog.Logger) (*fabric.Fabric, error) {
	env := config.New(c.Getenv)
	busCfg := bus.ConfigFromEnv(env)
	if err := env.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", command.ErrUsage, err)
	}
	if url := c.Getenv("AGENTK_NATS_URL"); url != "" {
		return fabric.Remote(ctx, url, c.KeysDir(), fabric.Options{Logger: log, Bus: busCfg})
	}
	port := 4222
	if v := c.Getenv("AGENTK_NATS_PORT"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 65535 {
			return nil, fmt.Errorf("%w: AGENTK_NATS_PORT=%q: want a port number (0 picks a free one)", command.ErrUsage, v)
		}
		port = n
	}
	return fabric.StartEmbedded(ctx, fabric.Options{DataDir: c.DataDir(), Logger: log, Port: port, Bus: busCfg})
}

func cmdUp(ctx context.Context, c *command.Env, args []string) error {
	fs := command.NewFlags(c, "up", "up   (every service in one process; SIGINT/SIGTERM stop consuming, let in-flight messages finish, then exit)\n\nThe configuration of every service is checked first and every problem reported at once (agentk config\nprints the whole configuration). Health: http://$AGENTK_HEALTH_ADDR/<service>/readyz.")
	if err := fs.Parse(args); err != nil {
		return err
	}
	return runServices(ctx, c, nil)
}

func cmdService(ctx context.Context, c *command.Env, role string, args []string) error {
	fs := command.NewFlags(c, role, role)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if c.Getenv(config.EnvNATSURL) == "" {
		return fmt.Errorf("%w: AGENTK_NATS_URL is required to run one service alone (use `agentk up` for all of them on embedded NATS)", command.ErrUsage)
	}
	if err := configcmd.Preflight(c, c.ProdLogger(), []string{role}); err != nil {
		return err
	}
	return runner.RunRegistered(ctx, role, c.Getenv)
}

// runServices runs roles (every service when nil) until ctx ends, serving
// /<service>/healthz and /<service>/readyz on AGENTK_HEALTH_ADDR. On SIGINT or
// SIGTERM each service stops consuming and finishes its in-flight messages
// before the connections drain.
func runServices(ctx context.Context, c *command.Env, roles []string) error {
	log := newLogger(c)
	if err := configcmd.Preflight(c, log, roles); err != nil {
		return err
	}
	name := "up"
	if len(roles) == 1 {
		name = roles[0]
	}
	shutdown, err := setupTelemetry(ctx, c, name)
	if err != nil {
		return err
	}
	// Runs after the services stop, so their last spans are flushed.
	defer func() { _ = shutdown(context.WithoutCancel(ctx)) }()
	f, err := openFabric(ctx, c, log)
	if err != nil {
		return err
	}
	defer func() {
		if err := f.Close(); err != nil {
			log.Warn("draining the bus connections", "err", err)
		}
	}()
	now := func() time.Time { return time.Now().UTC() }
	running, err := stack.Start(ctx, roles, func(ctx context.Context, role string) (service.Deps, error) {
		return f.Deps(ctx, role, now, c.Getenv)
	}, log, 30*time.Second)
	if err != nil {
		return err
	}
	addr := c.Getenv(config.EnvHealthAddr)
	if addr == "" {
		addr = config.DefaultHealthAddr
	}
	hs := &http.Server{Addr: addr, Handler: running.Health, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := hs.ListenAndServe(); err != nil && err != http.ErrServerClosed {
			log.Error("health endpoint stopped", "addr", addr, "err", err)
		}
	}()
	defer func() { _ = hs.Close() }()
	names := roles
	if names == nil {
		names = service.Roles()
	}
	log.Info("agentk: services running", "services", names, "nats_url", f.URL(), "health", "http://"+addr+"/<service>/readyz")
	var failure error
	select {
	case <-ctx.Done():
	case failure = <-running.Failed():
		log.Error("agentk: a service failed; stopping the others", "err", failure)
	}
	log.Info("agentk: stopping; in-flight messages finish first")
	if err := running.Stop(); err != nil {
		return err
	}
	return failure
}

func cmdKeys(ctx context.Context, c *command.Env, args []string) error {
	fs := command.NewFlags(c, "keys", "keys [--dir DIR] [--nats-conf FILE [--nats-host H --nats-port P --nats-store DIR]]")
	dir := fs.String("dir", c.KeysDir(), "where the seeds and keyring.json live")
	conf := fs.String("nats-conf", "", "also write a nats-server configuration with one nkey user per service and its subject permissions")
	host := fs.String("nats-host", "0.0.0.0", "listen host written into --nats-conf")
	port := fs.Int("nats-port", 4222, "client port written into --nats-conf")
	store := fs.String("nats-store", "/data/jetstream", "JetStream store directory written into --nats-conf")
	name := fs.String("nats-name", "agentk-nats", "server name written into --nats-conf")
	if err := fs.Parse(args); err != nil {
		return err
	}
	set, err := identity.Ensure(*dir)
	if err != nil {
		return err
	}
	if *conf != "" {
		text, err := natsembed.Render(natsembed.ServerConfig{ServerName: *name, Host: *host, Port: *port, StoreDir: *store, Users: set.PublicKeys()})
		if err != nil {
			return err
		}
		if err := os.WriteFile(*conf, []byte(text), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(c.Stdout, "nats-server configuration written to %s\n", *conf)
	}
	b, err := os.ReadFile(filepath.Join(*dir, identity.KeyringFile))
	if err != nil {
		return err
	}
	fmt.Fprintf(c.Stdout, "keys in %s (seeds are 0600; give each service only its own)\n%s\n", *dir, b)
	return nil
}
