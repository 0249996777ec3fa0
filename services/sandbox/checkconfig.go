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
