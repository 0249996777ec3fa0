// Command investigator runs the investigator against a NATS JetStream fabric.
//
// It reads AGENTK_NATS_URL and AGENTK_KEYS_DIR for its connection and
// identity, and the AGENTK_INVESTIGATOR, AGENTK_LLM_* and AGENTK_INVESTIGATION*
// variables of the service's README.
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
	"agentk/services/investigator"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, "investigator:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, getenv func(string) string) error {
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil)).With("service", envelope.RoleInvestigator)
	url, keys := getenv("AGENTK_NATS_URL"), getenv("AGENTK_KEYS_DIR")
	if url == "" || keys == "" {
		return fmt.Errorf("AGENTK_NATS_URL and AGENTK_KEYS_DIR are required")
	}
	f, err := fabric.Remote(ctx, url, keys, fabric.Options{Logger: log})
	if err != nil {
		return err
	}
	defer f.Close()
	d, err := f.Deps(ctx, envelope.RoleInvestigator, func() time.Time { return time.Now().UTC() }, getenv)
	if err != nil {
		return err
	}
	return investigator.Run(ctx, d)
}
