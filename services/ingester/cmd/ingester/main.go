// Command ingester runs agentk's ingester on its own, against a NATS server
// (AGENTK_NATS_URL) with its own nkey and the keyring from AGENTK_KEYS_DIR.
// Its variables are in the service's README; `agentk ingester` does the same
// from the combined binary.
package main

import (
	"agentk/contracts/envelope"
	"agentk/platform/runner"
	// Registers the ingester (register.go), whose Run runner.Main looks up.
	_ "agentk/services/ingester"
)

func main() { runner.Main(envelope.RoleIngester) }
