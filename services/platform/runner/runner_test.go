package runner

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"agentk/contracts/envelope"
	"agentk/platform/fabric"
	"agentk/platform/service"

	"github.com/stretchr/testify/require"
)

func TestRunNeedsNATS(t *testing.T) {
	err := Run(context.Background(), envelope.RoleGate, nil, func(string) string { return "" })
	require.ErrorIs(t, err, ErrConfig)
}

// Run joins a NATS server as the role, serves readiness once the service says
// it is ready, and returns when the context ends.
func TestRunServesHealthAndStops(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	f, err := fabric.StartEmbedded(ctx, fabric.Options{DataDir: dir, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	defer func() { _ = f.Close() }()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	env := map[string]string{"AGENTK_NATS_URL": f.URL(), "AGENTK_KEYS_DIR": filepath.Join(dir, "keys"),
		"AGENTK_HEALTH_ADDR": addr, "AGENTK_OTEL_DISABLED": "1"}
	runCtx, stop := context.WithCancel(ctx)
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- Run(runCtx, envelope.RoleGate, func(ctx context.Context, d service.Deps) error {
			require.Equal(t, f.Keyring().Entries(), d.Keyring.Entries())
			d.Ready()
			close(ready)
			<-ctx.Done()
			return nil
		}, func(k string) string { return env[k] })
	}()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("run returned early: %v", err)
	case <-ctx.Done():
		t.Fatal("never ready")
	}
	require.Eventually(t, func() bool {
		resp, err := http.Get("http://" + addr + "/gate/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, 10*time.Second, 50*time.Millisecond)
	stop()
	select {
	case err := <-done:
		require.True(t, err == nil || errors.Is(err, context.Canceled), "%v", err)
	case <-time.After(20 * time.Second):
		t.Fatal("run did not return after cancel")
	}
}

func TestRunRegisteredNeedsARegistration(t *testing.T) {
	err := RunRegistered(context.Background(), "no-such-service", func(string) string { return "" })
	require.ErrorIs(t, err, ErrNotRegistered)
}
