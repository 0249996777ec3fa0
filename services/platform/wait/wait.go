// Package wait holds the one sleep that a context can cut short: retries
// with backoff (the LLM and SigNoz clients), the deployer's stabilisation
// window and the live demo's pacing all wait through it.
package wait

import (
	"context"
	"time"
)

// Sleep waits d, or until ctx ends, and then returns ctx.Err(): nil when the
// whole d passed. A d of zero or less does not wait.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Every calls fn every interval until ctx ends (the first call after one
// interval: a caller that wants one now calls fn first). Background loops
// (the bridge's republishing and Slack probe) run through it.
func Every(ctx context.Context, interval time.Duration, fn func(context.Context)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			fn(ctx)
		}
	}
}
