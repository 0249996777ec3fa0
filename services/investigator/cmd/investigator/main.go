// Command investigator runs agentk's investigator on its own, against a NATS server
// (AGENTK_NATS_URL) with its own nkey and the keyring from AGENTK_KEYS_DIR.
// Its variables are in the service's README; `agentk investigator` does the same
// from the combined binary.
package main

import (
	"agentk/contracts/envelope"
	"agentk/platform/runner"
	// Registers the investigator (register.go), whose Run runner.Main looks up.
	_ "agentk/services/investigator"
)

func main() { runner.Main(envelope.RoleInvestigator) }
