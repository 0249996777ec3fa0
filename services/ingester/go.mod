module agentk/services/ingester

go 1.26.8

require (
	agentk/contracts v0.0.0
	agentk/platform v0.0.0
)

replace (
	agentk/contracts => ../../contracts
	agentk/platform => ../../platform
)
