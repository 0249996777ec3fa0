// Command sandbox runs agentk's sandbox on its own, against a NATS server
// (AGENTK_NATS_URL) with its own nkey and the keyring from AGENTK_KEYS_DIR.
// Its variables are in the service's README; `agentk sandbox` does the same
// from the combined binary.
package main

import (
	"agentk/contracts/envelope"
	"agentk/platform/runner"
	// Registers the sandbox (register.go), whose Run runner.Main looks up.
	_ "agentk/services/sandbox"
)

func main() { runner.Main(envelope.RoleSandbox) }
