package bridge

import (
	"context"

	"agentk/services/bridge/internal/config"
	"agentk/services/bridge/internal/slackport"
)

// CheckSlack asks Slack whether it accepts the configured bot token
// (auth.test), for `agentk config` and readiness: nil when Slack is not
// configured or accepts it, else Slack's answer (ErrSlack-wrapped).
func CheckSlack(ctx context.Context, getenv func(string) string) error {
	cfg, err := config.FromEnv(getenv)
	if err != nil {
		return err
	}
	if !cfg.SlackEnabled() {
		return nil
	}
	return slackport.New(slackport.Options{APIURL: cfg.SlackAPIURL, BotToken: cfg.SlackBotToken, Channel: cfg.SlackChannel}).AuthTest(ctx)
}
