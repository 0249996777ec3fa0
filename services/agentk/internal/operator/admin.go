package operator

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"agentk/cmd/agentk/internal/command"
	"agentk/cmd/agentk/internal/envdoc"
	"agentk/contracts/envelope"
	"agentk/platform/bus"
	"agentk/platform/fabric"
)

// operatorAdmin is how operator commands (report, incidents, audit, …)
// reach the data, as the admin: AGENTK_NATS_URL when set; else a running
// `agentk up` on this machine or the compose stack's NATS (both listen on
// 127.0.0.1:AGENTK_NATS_PORT), with the keys in AGENTK_KEYS_DIR; else the
// embedded server's store itself, opened offline from AGENTK_DATA_DIR/nats.
// A server is never re-provisioned by an operator's command. Connecting is
// bounded by the connect timeout: an address that does not answer fails with
// its name. done closes the connection and the fabric.
func operatorAdmin(ctx context.Context, c *command.Env) (adm *bus.Conn, kr *envelope.Keyring, done func(), err error) {
	ctx, cancel, err := c.WithConnectTimeout(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	defer cancel()
	log := c.Logger(false)
	join := func(ctx context.Context, url string) (*fabric.Fabric, *bus.Conn, error) {
		f, err := fabric.Remote(ctx, url, c.KeysDir(), fabric.Options{Logger: log, NoProvision: true})
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
	switch url := c.Getenv("AGENTK_NATS_URL"); {
	case url != "":
		f, adm, err = join(ctx, url)
		if errors.Is(err, bus.ErrConnect) {
			return nil, nil, nil, fmt.Errorf("%w: cannot reach NATS at AGENTK_NATS_URL=%s within %s (--connect-timeout): %w", command.ErrNoPipeline, envdoc.Redact("AGENTK_NATS_URL", url), c.Timeout(), err)
		}
		if err != nil {
			return nil, nil, nil, err
		}
	default:
		port := c.Getenv("AGENTK_NATS_PORT")
		if port == "" {
			port = "4222"
		}
		local := "nats://127.0.0.1:" + port
		if _, err := os.Stat(filepath.Join(c.KeysDir(), "keyring.json")); err == nil && port != "0" {
			probe, cancel := context.WithTimeout(ctx, min(2*time.Second, c.Timeout()))
			f, adm, err = join(probe, local)
			cancel()
		}
		if f == nil {
			// The offline store only when there is one: a keys-only .data
			// (the compose stack's host) is not an empty pipeline.
			if _, err := os.Stat(filepath.Join(c.DataDir(), "nats")); err != nil {
				return nil, nil, nil, fmt.Errorf("%w: nothing answers on %s with the keys in %s, and %s holds no embedded store: start `agentk up`, or point AGENTK_NATS_URL at the NATS server (the compose stack: docs/deploy.md)", command.ErrNoPipeline, local, c.KeysDir(), c.DataDir())
			}
			if f, err = fabric.StartEmbedded(ctx, fabric.Options{DataDir: c.DataDir(), Logger: log, Port: 0}); err != nil {
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

// parseAndConnect parses a listing command's flags, then connects as
// operatorAdmin does; done closes the connection.
func parseAndConnect(ctx context.Context, c *command.Env, fs *command.FlagSet, args []string) (adm *bus.Conn, done func(), err error) {
	if err := fs.Parse(args); err != nil {
		return nil, nil, err
	}
	adm, _, done, err = operatorAdmin(ctx, c)
	return adm, done, err
}

// Admin connects as the operator's commands do (see operatorAdmin), for
// `agentk config` to check that they can. done closes the connection.
func Admin(ctx context.Context, c *command.Env) (*bus.Conn, func(), error) {
	adm, _, done, err := operatorAdmin(ctx, c)
	return adm, done, err
}
