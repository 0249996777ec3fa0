module agentk/cmd/agentk

go 1.26.8

require (
	agentk/contracts v0.0.0
	agentk/platform v0.0.0
	agentk/services/ingester v0.0.0
	agentk/services/investigator v0.0.0
	agentk/services/sandbox v0.0.0
	agentk/services/reviewer v0.0.0
	agentk/services/gate v0.0.0
	agentk/services/bridge v0.0.0
	agentk/services/deployer v0.0.0
)

replace (
	agentk/contracts => ../../contracts
	agentk/platform => ../../platform
	agentk/services/ingester => ../../services/ingester
	agentk/services/investigator => ../../services/investigator
	agentk/services/sandbox => ../../services/sandbox
	agentk/services/reviewer => ../../services/reviewer
	agentk/services/gate => ../../services/gate
	agentk/services/bridge => ../../services/bridge
	agentk/services/deployer => ../../services/deployer
)
