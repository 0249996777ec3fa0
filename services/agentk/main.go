// Command agentk runs the agentk pipeline: every service in one process
// (`agentk up`), one service (`agentk gate`, …), recorded incidents (`agentk
// replay`, `agentk eval`, `agentk demo`) and the operator's tools. The
// commands live in their packages under internal/, composed by internal/cli;
// this package only hands them the process.
package main

import (
	"os"

	"agentk/cmd/agentk/internal/cli"
)

// version is set at link time: go build -ldflags "-X main.version=v1.2.3".
var version string

func main() {
	os.Exit(cli.Main(os.Args[1:], version))
}
