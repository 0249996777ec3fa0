// Command bridge runs agentk's approval bridge on its own, against a NATS
// server (AGENTK_NATS_URL) with the bridge's nkey (AGENTK_KEYS_DIR).
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
	"agentk/services/bridge"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, "bridge:", err)
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
	d, err := f.Deps(ctx, envelope.RoleBridge, func() time.Time { return time.Now().UTC() }, getenv)
	if err != nil {
		return err
	}
	d.Ready = func() { log.Info("ready") }
	return bridge.Run(ctx, d)
}
