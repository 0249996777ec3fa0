module agentk/services/sandbox

go 1.26.8

require (
	agentk/contracts v0.0.0
	agentk/platform v0.0.0
)

require (
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
	golang.org/x/text v0.37.0 // indirect
)

replace (
	agentk/contracts => ../../contracts
	agentk/platform => ../../platform
)
