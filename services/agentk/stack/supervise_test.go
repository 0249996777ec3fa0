package stack_test

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"agentk/cmd/agentk/stack"
	"agentk/contracts/envelope"
	"agentk/platform/bus"
	"agentk/platform/fabric"
	"agentk/platform/service"

	"github.com/stretchr/testify/require"
)

// TestAStoppedRouterIsVisibleAndRestarted is issue 19's "agentk up keeps
// running and never says so": the gate's connection dies under it (as the
// 100 KB key made it die), its router stops; /readyz says so with the
// error, the service is restarted on a new connection, and it is ready again.
func TestAStoppedRouterIsVisibleAndRestarted(t *testing.T) {
	t.Setenv("AGENTK_OTEL_DISABLED", "1")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	f, err := fabric.StartEmbedded(ctx, fabric.Options{DataDir: t.TempDir()})
	require.NoError(t, err)
	defer func() { _ = f.Close() }()
	var mu sync.Mutex
	var conns []*bus.Conn
	// Restarting blocks until the test lets it, so the stopped state can be
	// observed without racing the backoff.
	gateOpen := make(chan struct{})
	deps := func(ctx context.Context, role string) (service.Deps, error) {
		mu.Lock()
		n := len(conns)
		mu.Unlock()
		if n > 0 {
			select {
			case <-gateOpen:
			case <-ctx.Done():
				return service.Deps{}, ctx.Err()
			}
		}
		d, err := f.Deps(ctx, role, nil, func(string) string { return "" })
		if err == nil {
			mu.Lock()
			conns = append(conns, d.Bus)
			mu.Unlock()
		}
		return d, err
	}
	r, err := stack.StartSupervised(ctx, []string{envelope.RoleGate}, deps, slog.New(slog.DiscardHandler), 30*time.Second,
		stack.Supervision{MinBackoff: 10 * time.Millisecond})
	require.NoError(t, err)
	defer func() { _ = r.Stop() }()
	require.True(t, r.Health.Statuses()[0].Ready)

	mu.Lock()
	conns[0].NATS().Close()
	mu.Unlock()
	require.Eventually(t, func() bool {
		s := r.Health.Statuses()[0]
		return !s.Ready && s.Restarts == 1
	}, 20*time.Second, 10*time.Millisecond, "a stopped gate is not ready")
	s := r.Health.Statuses()[0]
	require.Contains(t, s.LastError, "stopped on its own")
	require.Contains(t, s.LastError, bus.ErrStopped.Error())

	close(gateOpen)
	require.Eventually(t, func() bool { return r.Health.Statuses()[0].Ready }, 20*time.Second, 10*time.Millisecond, "restarted and ready")
	require.EqualValues(t, 1, r.Restarts())
	select {
	case err := <-r.Failed():
		t.Fatalf("a supervised stop is not a failure of up: %v", err)
	default:
	}
}
