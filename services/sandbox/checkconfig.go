package sandbox

import (
	"os"

	"agentk/services/sandbox/internal/config"
)

// CheckConfig reads the service's configuration from getenv exactly as Run
// does and returns every problem at once, for `agentk config`.
func CheckConfig(getenv func(string) string) error {
	_, err := config.FromEnv(getenv, os.ReadFile)
	return err
}

// LinkBase is the SigNoz base URL the sandbox builds its evidence links
// under, read as Run reads it, for `agentk config`'s cross-check.
func LinkBase(getenv func(string) string) (string, error) {
	c, err := config.FromEnv(getenv, os.ReadFile)
	if err != nil && c.LinkBaseURL == "" {
		return "", err
	}
	return c.LinkBaseURL, nil
}
