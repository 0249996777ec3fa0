// Package cli is agentk's command line, composed: the frame (internal/command)
// and every package of commands, each registering its own. Package main only
// hands it the process (Main).
package cli

import (
	"agentk/cmd/agentk/internal/command"

	// The command packages register their commands: what is imported here
	// is what `agentk help` lists, in this order.
	_ "agentk/cmd/agentk/internal/bridgecmd"
	_ "agentk/cmd/agentk/internal/configcmd"
	_ "agentk/cmd/agentk/internal/operator"
	_ "agentk/cmd/agentk/internal/replaycmd"
	_ "agentk/cmd/agentk/internal/up"
)

// Main runs the command line args (without the program's name) on the
// process's I/O and environment and returns the exit code; release names
// the binary's version when set at link time.
func Main(args []string, release string) int { return command.Main(args, release) }
