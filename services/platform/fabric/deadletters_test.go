package fabric_test

import (
	"context"
	"testing"
	"time"

	"agentk/contracts/envelope"
	"agentk/platform/bus"

	"github.com/stretchr/testify/require"
)

// TestBridgeReadsTheDeadLettersOthersCannot: the console's dead-letter page
// reads the dead-letter stream with the bridge's own credentials; a role
// without the grant (the investigator) is refused.
func TestBridgeReadsTheDeadLettersOthersCannot(t *testing.T) {
	t.Parallel()
	f := start(t, t.TempDir())
	t.Cleanup(func() { _ = f.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	br, err := f.Connect(ctx, envelope.RoleBridge)
	require.NoError(t, err)
	dls, err := bus.ReadDeadLetters(ctx, br.JetStream(), time.Time{}, 10)
	require.NoError(t, err)
	require.Empty(t, dls)

	inv, err := f.Connect(ctx, envelope.RoleInvestigator)
	require.NoError(t, err)
	short, cancel2 := context.WithTimeout(ctx, 2*time.Second)
	defer cancel2()
	_, err = bus.ReadDeadLetters(short, inv.JetStream(), time.Time{}, 10)
	require.Error(t, err)
}
