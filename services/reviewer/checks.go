package reviewer

import (
	"strings"

	"agentk/services/reviewer/internal/config"
)

// LinkBase is the SigNoz base URL the reviewer keeps claims' links under,
// read as Run reads it, for `agentk config`'s cross-check.
func LinkBase(getenv func(string) string) (string, error) {
	c, err := config.FromEnv(getenv)
	if c.BaseURL == nil {
		return "", err
	}
	return strings.TrimRight(c.BaseURL.String(), "/"), nil
}
