package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"agentk/cmd/agentk/stack"
	"agentk/contracts/envelope"
	"agentk/platform/bus"
	"agentk/platform/config"
	"agentk/platform/fabric"
	"agentk/platform/identity"
	"agentk/platform/natsembed"
	"agentk/platform/runner"
	"agentk/platform/service"
)

func serviceNames() []string {
	var out []string
	for _, e := range stack.Services() {
		out = append(out, e.Role)
	}
	return out
}

// globalConfig reads what every process reads (platform/config/global.go):
// a bad value, such as an unknown AGENTK_LOG_LEVEL, is refused.
func globalConfig(c *cli) (config.Global, error) {
	env := config.New(c.getenv)
	g := config.GlobalFromEnv(env)
	if err := env.Err(); err != nil {
		return g, fmt.Errorf("%w: %w", errUsage, err)
	}
	return g, nil
}

func dataDir(c *cli) string {
	g, _ := globalConfig(c)
	return g.DataDir
}

func keysDir(c *cli) string {
	g, _ := globalConfig(c)
	return g.KeysDir
}

// prodLogger is the process's logger as config.Global builds it. Commands
// that start services refuse a bad AGENTK_LOG_LEVEL in their preflight (the
// platform's check, config.Platform); until then it logs at the default.
func prodLogger(c *cli) *slog.Logger {
	g, _ := globalConfig(c)
	return g.Logger(c.stderr)
}

// openFabric joins AGENTK_NATS_URL when set, else starts the embedded server.
func openFabric(ctx context.Context, c *cli, log *slog.Logger) (*fabric.Fabric, error) {
	env := config.New(c.getenv)
	busCfg := bus.ConfigFromEnv(env)
	if err := env.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", errUsage, err)
	}
	if url := c.getenv("AGENTK_NATS_URL"); url != "" {
		return fabric.Remote(ctx, url, keysDir(c), fabric.Options{Logger: log, Bus: busCfg})
	}
	port := 4222
	if v := c.getenv("AGENTK_NATS_PORT"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 65535 {
			return nil, fmt.Errorf("%w: AGENTK_NATS_PORT=%q: want a port number (0 picks a free one)", errUsage, v)
		}
		port = n
	}
	return fabric.StartEmbedded(ctx, fabric.Options{DataDir: dataDir(c), Logger: log, Port: port, Bus: busCfg})
}

func cmdUp(ctx context.Context, c *cli, args []string) error {
	fs := newFlags(c, "up", "up   (every service in one process; SIGINT/SIGTERM stop consuming, let in-flight messages finish, then exit)\n\nThe configuration of every service is checked first and every problem reported at once (agentk config\nprints the whole configuration). Health: http://$AGENTK_HEALTH_ADDR/<service>/readyz.")
	if err := fs.Parse(args); err != nil {
		return err
	}
	return runServices(ctx, c, nil)
}

func cmdService(ctx context.Context, c *cli, role string, args []string) error {
	fs := newFlags(c, role, role)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if c.getenv(config.EnvNATSURL) == "" {
		return fmt.Errorf("%w: AGENTK_NATS_URL is required to run one service alone (use `agentk up` for all of them on embedded NATS)", errUsage)
	}
	if err := preflight(c, prodLogger(c), []string{role}); err != nil {
		return err
	}
	return runner.RunRegistered(ctx, role, c.getenv)
}

// runServices runs roles (every service when nil) until ctx ends, serving
// /<service>/healthz and /<service>/readyz on AGENTK_HEALTH_ADDR. On SIGINT or
// SIGTERM each service stops consuming and finishes its in-flight messages
// before the connections drain.
func runServices(ctx context.Context, c *cli, roles []string) error {
	log := newLogger(c)
	if err := preflight(c, log, roles); err != nil {
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
		return f.Deps(ctx, role, now, c.getenv)
	}, log, 30*time.Second)
	if err != nil {
		return err
	}
	addr := c.getenv(config.EnvHealthAddr)
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
		names = serviceNames()
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

func cmdKeys(ctx context.Context, c *cli, args []string) error {
	fs := newFlags(c, "keys", "keys [--dir DIR] [--nats-conf FILE [--nats-host H --nats-port P --nats-store DIR]]")
	dir := fs.String("dir", keysDir(c), "where the seeds and keyring.json live")
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
		fmt.Fprintf(c.stdout, "nats-server configuration written to %s\n", *conf)
	}
	b, err := os.ReadFile(filepath.Join(*dir, identity.KeyringFile))
	if err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "keys in %s (seeds are 0600; give each service only its own)\n%s\n", *dir, b)
	return nil
}

// operatorAdmin is how operator commands (report, incidents, audit, …)
// reach the data, as the admin: AGENTK_NATS_URL when set; else a running
// `agentk up` on this machine or the compose stack's NATS (both listen on
// 127.0.0.1:AGENTK_NATS_PORT), with the keys in AGENTK_KEYS_DIR; else the
// embedded server's store itself, opened offline from AGENTK_DATA_DIR/nats.
// A server is never re-provisioned by an operator's command. Connecting is
// bounded by the connect timeout: an address that does not answer fails with
// its name. done closes the connection and the fabric.
func operatorAdmin(ctx context.Context, c *cli) (adm *bus.Conn, kr *envelope.Keyring, done func(), err error) {
	ctx, cancel, err := c.withConnectTimeout(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	defer cancel()
	log := logger(c, false)
	join := func(ctx context.Context, url string) (*fabric.Fabric, *bus.Conn, error) {
		f, err := fabric.Remote(ctx, url, keysDir(c), fabric.Options{Logger: log, NoProvision: true})
		if err != nil {
			return nil, nil, err
		}
		adm, err := f.Admin(ctx)
		if err != nil {
			_ = f.Close()
			return nil, nil, err
		}
		return f, adm, nil
	}
	var f *fabric.Fabric
	switch url := c.getenv("AGENTK_NATS_URL"); {
	case url != "":
		f, adm, err = join(ctx, url)
		if errors.Is(err, bus.ErrConnect) {
			return nil, nil, nil, fmt.Errorf("%w: cannot reach NATS at AGENTK_NATS_URL=%s within %s (--connect-timeout): %w", errNoPipeline, redact("AGENTK_NATS_URL", url), c.timeout(), err)
		}
		if err != nil {
			return nil, nil, nil, err
		}
	default:
		port := c.getenv("AGENTK_NATS_PORT")
		if port == "" {
			port = "4222"
		}
		local := "nats://127.0.0.1:" + port
		if _, err := os.Stat(filepath.Join(keysDir(c), "keyring.json")); err == nil && port != "0" {
			probe, cancel := context.WithTimeout(ctx, min(2*time.Second, c.timeout()))
			f, adm, err = join(probe, local)
			cancel()
		}
		if f == nil {
			// The offline store only when there is one: a keys-only .data
			// (the compose stack's host) is not an empty pipeline.
			if _, err := os.Stat(filepath.Join(dataDir(c), "nats")); err != nil {
				return nil, nil, nil, fmt.Errorf("%w: nothing answers on %s with the keys in %s, and %s holds no embedded store: start `agentk up`, or point AGENTK_NATS_URL at the NATS server (the compose stack: docs/deploy.md)", errNoPipeline, local, keysDir(c), dataDir(c))
			}
			if f, err = fabric.StartEmbedded(ctx, fabric.Options{DataDir: dataDir(c), Logger: log, Port: 0}); err != nil {
				return nil, nil, nil, err
			}
			if adm, err = f.Admin(ctx); err != nil {
				_ = f.Close()
				return nil, nil, nil, err
			}
		}
	}
	return adm, f.Keyring(), func() { _ = adm.Close(); _ = f.Close() }, nil
}

// errNoPipeline is returned by operator commands that cannot reach NATS.
var errNoPipeline = errors.New("no pipeline reachable")

// timeout is the effective connect timeout.
func (c *cli) timeout() time.Duration {
	if c.connectTimeout > 0 {
		return c.connectTimeout
	}
	return defaultConnectTimeout
}
