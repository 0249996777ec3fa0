module agentk/services/ingester

go 1.26.8

require agentk/contracts v0.0.0

require (
	github.com/nats-io/nkeys v0.4.17 // indirect
	github.com/stretchr/testify v1.12.1
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/crypto v0.58.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
)

replace (
	agentk/contracts => ../../contracts
	agentk/platform => ../../platform
)
