package configcmd

import (
	"os"
	"testing"

	"agentk/cmd/agentk/internal/command"
)

// TestMain registers this package's commands, as internal/cli does, so the
// tests drive them through command.Run.
func TestMain(m *testing.M) {
	command.Register(Commands()...)
	os.Exit(m.Run())
}
