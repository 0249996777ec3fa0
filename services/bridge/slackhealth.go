package bridge

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"agentk/platform/service"
	"agentk/platform/wait"
	"agentk/services/bridge/internal/slackport"
)

// slackCheckInterval is how often the bridge asks Slack whether it still
// accepts the bot token.
const slackCheckInterval = 5 * time.Minute

// Names readiness reports Slack under: whether it takes the token
// (auth.test), and whether it takes the bridge's messages (the last post or
// update). Kept apart so that a token check that passes does not hide posts
// that Slack refuses (a channel the app was removed from).
const (
	DependencySlack      = "slack"
	DependencySlackPosts = "slack_posts"
)

// slackReporter turns the result of every Slack call into the service's
// readiness: a refusal is logged once when it starts (and again when it
// changes), and readiness names it until a call of the same kind succeeds.
func slackReporter(d service.Deps, log *slog.Logger) func(string, error) {
	var (
		mu   sync.Mutex
		last = map[string]string{}
	)
	return func(method string, err error) {
		dep := DependencySlackPosts
		if method == "auth.test" {
			dep = DependencySlack
		}
		mu.Lock()
		defer mu.Unlock()
		d.ReportDependency(dep, err)
		switch {
		case err == nil && last[dep] != "":
			log.Info("slack accepts the bridge again", "check", dep)
			delete(last, dep)
		case err != nil && err.Error() != last[dep]:
			log.Error("slack refuses the bridge: decisions are not reaching Slack", "check", dep, "err", err)
			last[dep] = err.Error()
		}
	}
}

// watchSlack runs auth.test now and every interval until ctx ends.
func watchSlack(ctx context.Context, c *slackport.Client, interval time.Duration) {
	probe := func(ctx context.Context) {
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		_ = c.AuthTest(cctx) // reported through Options.Report
		cancel()
	}
	probe(ctx)
	wait.Every(ctx, interval, probe)
}
