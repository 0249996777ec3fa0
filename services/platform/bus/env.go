package bus

import (
	"time"

	"agentk/platform/config"
)

// Variables of the bus every process reads once at start (platform/README.md).
const (
	EnvAckWait    = "AGENTK_BUS_ACK_WAIT"
	EnvMaxDeliver = "AGENTK_BUS_MAX_DELIVER"
)

// ConfigFromEnv reads the bus variables into a Config template (the URL,
// name, seed and logger are filled in per connection). Problems are recorded
// in e: check e.Err() once every variable is read.
func ConfigFromEnv(e *config.Env) Config {
	return Config{
		AckWait: e.Duration(EnvAckWait, 30*time.Second, time.Second,
			"how long JetStream waits for a handler's ack before redelivering (a slow handler sends in-progress heartbeats at a third of it)"),
		MaxDeliver: e.Int(EnvMaxDeliver, 5, 1, 100,
			"deliveries of a failing message before it is dead-lettered"),
	}
}
