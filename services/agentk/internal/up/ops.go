package up

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"agentk/cmd/agentk/internal/command"
	"agentk/platform/bus"
	"agentk/platform/fabric"
	"agentk/platform/identity"
)

// provisionConfig reads the stream sizing variables.
func provisionConfig(c *command.Env) (bus.ProvisionConfig, error) {
	var p bus.ProvisionConfig
	if v := c.Getenv("AGENTK_STREAM_REPLICAS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || (n != 1 && n != 3 && n != 5) {
			return p, fmt.Errorf("%w: AGENTK_STREAM_REPLICAS=%q: want 1, 3 or 5", command.ErrUsage, v)
		}
		p.Replicas = n
	}
	if v := c.Getenv("AGENTK_STREAM_MAX_AGE"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < time.Hour {
			return p, fmt.Errorf("%w: AGENTK_STREAM_MAX_AGE=%q: want a duration of at least 1h (the audit trail lives in the streams)", command.ErrUsage, v)
		}
		p.MaxAge = d
	}
	return p, nil
}

func cmdProvision(ctx context.Context, c *command.Env, args []string) error {
	fs := command.NewFlags(c, "provision", "provision [--timeout 2m]")
	timeout := fs.Duration("timeout", 2*time.Minute, "give up when NATS has not answered by then")
	if err := fs.Parse(args); err != nil {
		return err
	}
	url := c.Getenv("AGENTK_NATS_URL")
	if url == "" {
		return fmt.Errorf("%w: AGENTK_NATS_URL is required (the embedded server provisions itself)", command.ErrUsage)
	}
	dir := c.KeysDir()
	if _, err := os.Stat(identity.SeedFile(dir, "admin")); err != nil {
		return fmt.Errorf("%w: provisioning needs the admin seed in %s (%v)", command.ErrUsage, filepath.Clean(dir), err)
	}
	pc, err := provisionConfig(c)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	log := c.ProdLogger()
	start := time.Now()
	f, err := fabric.Remote(ctx, url, dir, fabric.Options{Logger: log, Provision: pc})
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	fmt.Fprintf(c.Stdout, "provisioned every stream and KV bucket on %s in %s\n", url, time.Since(start).Round(time.Millisecond))
	return nil
}

func cmdHealthcheck(ctx context.Context, c *command.Env, args []string) error {
	fs := command.NewFlags(c, "healthcheck", "healthcheck [--timeout 3s] <url>")
	timeout := fs.Duration("timeout", 3*time.Second, "how long to wait for an answer")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return fmt.Errorf("%w: want one URL", command.ErrUsage)
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fs.Arg(0), nil)
	if err != nil {
		return fmt.Errorf("%w: %v", command.ErrUsage, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered %s", fs.Arg(0), resp.Status)
	}
	return nil
}
