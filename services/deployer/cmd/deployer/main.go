// Command deployer runs the agentk deployer against a NATS JetStream fabric:
// the only process with the Docker socket.
//
// It reads AGENTK_NATS_URL and AGENTK_KEYS_DIR for its connection and
// identity, and the variables in the service's README.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"agentk/contracts/envelope"
	"agentk/platform/fabric"
	"agentk/services/deployer"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, "deployer:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, getenv func(string) string) error {
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil)).With("service", envelope.RoleDeployer)
	url, keys := getenv("AGENTK_NATS_URL"), getenv("AGENTK_KEYS_DIR")
	if url == "" || keys == "" {
		return fmt.Errorf("AGENTK_NATS_URL and AGENTK_KEYS_DIR are required")
	}
	f, err := fabric.Remote(ctx, url, keys, fabric.Options{Logger: log})
	if err != nil {
		return err
	}
	defer f.Close()
	d, err := f.Deps(ctx, envelope.RoleDeployer, func() time.Time { return time.Now().UTC() }, getenv)
	if err != nil {
		return err
	}
	return deployer.Run(ctx, d)
}
