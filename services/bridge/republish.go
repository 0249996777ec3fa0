package bridge

import (
	"context"
	"log/slog"
	"time"

	"agentk/platform/wait"
)

// republishInterval is how often this process publishes again the answers
// it accepted and has not seen published (a stream leader election, a
// partition); every republishFullEvery such rounds (a minute) it reads every
// record instead, for an answer another bridge accepted and never published
// (a replica that stopped in between and was not restarted).
const (
	republishInterval  = 5 * time.Second
	republishFullEvery = 12
)

// republishLoop calls own every interval, and all instead every fullEvery
// rounds, until ctx ends: the cheap retry reads only what this process left
// pending, so the bridge's cost does not grow with the history of decisions.
func republishLoop(ctx context.Context, interval time.Duration, fullEvery int, own, all func(context.Context) error, log *slog.Logger) {
	round := 0
	wait.Every(ctx, interval, func(ctx context.Context) {
		round++
		republish := own
		if fullEvery > 0 && round%fullEvery == 0 {
			republish = all
		}
		if err := republish(ctx); err != nil && ctx.Err() == nil {
			log.WarnContext(ctx, "could not re-publish pending approvals", "err", err)
		}
	})
}
