package cli

import (
	"bytes"
	"context"

	"agentk/cmd/agentk/internal/command"
	"agentk/cmd/agentk/internal/command/commandtest"
	"agentk/cmd/agentk/stack"
)

// testCLI and run are the command line as the tests of this package drive it.
func testCLI(env map[string]string) (*command.Env, *bytes.Buffer, *bytes.Buffer) {
	return commandtest.New(env)
}

func run(ctx context.Context, c *command.Env, args []string) int { return command.Run(ctx, c, args) }

// serviceNames are the registered services' roles, in start order.
func serviceNames() []string {
	var out []string
	for _, r := range stack.Services() {
		out = append(out, r.Role)
	}
	return out
}
