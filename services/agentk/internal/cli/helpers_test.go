package cli

import (
	"bytes"
	"context"

	"agentk/cmd/agentk/internal/command"
	"agentk/cmd/agentk/internal/command/commandtest"
)

// testCLI and run are the command line as the tests of this package drive it.
func testCLI(env map[string]string) (*command.Env, *bytes.Buffer, *bytes.Buffer) {
	return commandtest.New(env)
}

func run(ctx context.Context, c *command.Env, args []string) int { return command.Run(ctx, c, args) }
