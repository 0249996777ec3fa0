package bridge

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"agentk/platform/service"
	"agentk/services/bridge/internal/slackport"
)

// slackCheckInterval is how often the bridge asks Slack whether it still
// accepts the bot token.
const slackCheckInterval = 5 * time.Minute

// DependencySlack is the name readiness reports Slack under.
const DependencySlack = "slack"

// slackReporter turns the result of every Slack call into the service's
// readiness: a refusal is logged once when it starts (and again when it
// changes), and readiness names it until a call succeeds again.
func slackReporter(d service.Deps, log *slog.Logger) func(error) {
	var (
		mu   sync.Mutex
		last string
	)
	return func(err error) {
		mu.Lock()
		defer mu.Unlock()
		d.ReportDependency(DependencySlack, err)
		switch {
		case err == nil && last != "":
			log.Info("slack accepts the bridge again")
			last = ""
		case err != nil && err.Error() != last:
			log.Error("slack refuses the bridge: decisions are not reaching Slack", "err", err)
			last = err.Error()
		}
	}
}

// watchSlack runs auth.test now and every interval until ctx ends.
func watchSlack(ctx context.Context, c *slackport.Client, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		_ = c.AuthTest(cctx) // reported through Options.Report
		cancel()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
