module agentk/e2e

go 1.26.8

require (
	agentk/cmd/agentk v0.0.0
	agentk/contracts v0.0.0
	agentk/platform v0.0.0
)

require github.com/stretchr/testify v1.12.1 // indirect

replace (
	agentk/cmd/agentk => ../cmd/agentk
	agentk/contracts => ../contracts
	agentk/platform => ../platform
)
