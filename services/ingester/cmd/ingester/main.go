// Command ingester serves the SigNoz / Alertmanager webhook and publishes
// incidents on a NATS JetStream fabric.
//
// It reads AGENTK_NATS_URL and AGENTK_KEYS_DIR for its connection and
// identity, and the AGENTK_INGEST_* variables of the service's README.
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
	"agentk/services/ingester"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, "ingester:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, getenv func(string) string) error {
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	url, keys := getenv("AGENTK_NATS_URL"), getenv("AGENTK_KEYS_DIR")
	if url == "" || keys == "" {
		return fmt.Errorf("AGENTK_NATS_URL and AGENTK_KEYS_DIR are required")
	}
	f, err := fabric.Remote(ctx, url, keys, fabric.Options{Logger: log})
	if err != nil {
		return err
	}
	defer f.Close()
	d, err := f.Deps(ctx, envelope.RoleIngester, func() time.Time { return time.Now().UTC() }, getenv)
	if err != nil {
		return err
	}
	return ingester.Run(ctx, d)
}
