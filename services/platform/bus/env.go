package bus

import (
	"time"

	"agentk/platform/config"
)

// Variables of the bus every process reads once at start (platform/README.md).
// Their kinds, bounds, defaults and docs are declared once, in config.Platform.
const (
	EnvAckWait    = config.EnvBusAckWait
	EnvMaxDeliver = config.EnvBusMaxDeliver
)

// ConfigFromEnv reads the bus variables into a Config template (the URL,
// name, seed and logger are filled in per connection). Problems are recorded
// in e: check e.Err() once every variable is read.
func ConfigFromEnv(e *config.Env) Config {
	return Config{
		AckWait:    config.Declared[time.Duration](e, config.Platform, EnvAckWait),
		MaxDeliver: config.Declared[int](e, config.Platform, EnvMaxDeliver),
	}
}
