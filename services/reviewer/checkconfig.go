package reviewer

import (
	"strings"

	"agentk/services/reviewer/internal/config"
)

// CheckConfig reads the service's configuration from getenv exactly as Run
// does and returns every problem at once, for `agentk config`.
func CheckConfig(getenv func(string) string) error {
	_, err := config.FromEnv(getenv)
	return err
}

// LinkBase is the SigNoz base URL the reviewer keeps claims' links under,
// read as Run reads it, for `agentk config`'s cross-check.
func LinkBase(getenv func(string) string) (string, error) {
	c, err := config.FromEnv(getenv)
	if c.BaseURL == nil {
		return "", err
	}
	return strings.TrimRight(c.BaseURL.String(), "/"), nil
}
