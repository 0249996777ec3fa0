package bridge

import (
	"context"

	"agentk/services/bridge/internal/config"
	"agentk/services/bridge/internal/slackport"
)

// CheckSlack asks Slack whether it accepts the configured bot token
// (auth.test), for `agentk config` and readiness. configured is false when
// Slack is not configured (nothing asked); err is Slack's refusal
// (ErrSlack-wrapped) or the bridge's configuration problem.
func CheckSlack(ctx context.Context, getenv func(string) string) (configured bool, err error) {
	cfg, err := config.FromEnv(getenv)
	if err != nil {
		return false, err
	}
	if !cfg.SlackEnabled() {
		return false, nil
	}
	return true, slackport.New(slackport.Options{APIURL: cfg.SlackAPIURL, BotToken: cfg.SlackBotToken, Channel: cfg.SlackChannel}).AuthTest(ctx)
}
