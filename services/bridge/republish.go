package bridge

import (
	"context"
	"log/slog"
	"time"

	"agentk/platform/wait"
)

// republishInterval is how often accepted answers not yet on the bus are
// published again.
const republishInterval = 5 * time.Second

// republishLoop calls republish every interval until ctx ends.
func republishLoop(ctx context.Context, interval time.Duration, republish func(context.Context) error, log *slog.Logger) {
	wait.Every(ctx, interval, func(ctx context.Context) {
		if err := republish(ctx); err != nil && ctx.Err() == nil {
			log.WarnContext(ctx, "could not re-publish pending approvals", "err", err)
		}
	})
}
