// Package cli is agentk's command line, composed: the frame (internal/command)
// and every package of commands, registered here in the order `agentk help`
// lists them. Package main only hands it the process (Main).
package cli

import (
	"agentk/cmd/agentk/internal/bridgecmd"
	"agentk/cmd/agentk/internal/command"
	"agentk/cmd/agentk/internal/configcmd"
	"agentk/cmd/agentk/internal/operator"
	"agentk/cmd/agentk/internal/replaycmd"
	"agentk/cmd/agentk/internal/up"
)

func init() {
	command.Register(up.Commands()...)
	command.Register(replaycmd.Commands()...)
	command.Register(configcmd.Commands()...)
	command.Register(operator.Commands()...)
	command.Register(bridgecmd.Commands()...)
	command.Register(up.ServiceCommands()...)
}

// Main runs the command line args (without the program's name) on the
// process's I/O and environment and returns the exit code; release names
// the binary's version when set at link time.
func Main(args []string, release string) int { return command.Main(args, release) }
