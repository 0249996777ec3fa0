module agentk/services/investigator

go 1.26.8

require (
	agentk/contracts v0.0.0
	agentk/platform v0.0.0
)

require (
	github.com/sashabaranov/go-openai v1.43.0 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
)

replace (
	agentk/contracts => ../../contracts
	agentk/platform => ../../platform
)
