package replaycmd

import (
	"context"
	"io"
	"testing"

	"agentk/cmd/agentk/internal/command"

	"github.com/stretchr/testify/require"
)

// TestDemoTwoServicesNeedsLive: --two-services is a scenario of the live
// demo; without --live it is refused, not ignored.
func TestDemoTwoServicesNeedsLive(t *testing.T) {
	t.Parallel()
	c := &command.Env{Stdout: io.Discard, Stderr: io.Discard, Getenv: func(string) string { return "" }}
	err := cmdDemo(context.Background(), c, []string{"--two-services"})
	require.ErrorContains(t, err, "--two-services")
	require.ErrorContains(t, err, "--live")
}
