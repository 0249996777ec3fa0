module agentk/contracts

go 1.26.8

require github.com/nats-io/nkeys v0.4.17

require (
	golang.org/x/crypto v0.52.0 // indirect
	golang.org/x/sys v0.45.0 // indirect
)
