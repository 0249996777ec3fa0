package bus_test

import (
	"context"
	"log/slog"
	"os"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/bus"
	"agentk/platform/fabric"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
)

// startFabric runs an embedded fabric in a temp dir for one test.
func startFabric(t testing.TB, tmpl bus.Config) *fabric.Fabric {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	f, err := fabric.StartEmbedded(ctx, fabric.Options{DataDir: t.TempDir(), Bus: tmpl, Logger: testLogger()})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, f.Close()) })
	return f
}

func testLogger() *slog.Logger {
	if os.Getenv("AGENTK_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.DiscardHandler)
}

func connect(t *testing.T, f *fabric.Fabric, role string) *bus.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := f.Connect(ctx, role)
	require.NoError(t, err)
	return c
}

func admin(t *testing.T, f *fabric.Fabric) *bus.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := f.Admin(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func seal(t *testing.T, f *fabric.Fabric, role, subject, payload string) envelope.Envelope {
	t.Helper()
	env, err := f.Signer(role).Seal(subject, []byte(payload), time.Now(), 0)
	require.NoError(t, err)
	return env
}

// streamMsgs returns every message stored on subject's stream.
func streamMsgs(t *testing.T, c *bus.Conn, stream string) []*jetstream.RawStreamMsg {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := c.JetStream().Stream(ctx, stream)
	require.NoError(t, err)
	info, err := s.Info(ctx)
	require.NoError(t, err)
	var out []*jetstream.RawStreamMsg
	for seq := info.State.FirstSeq; seq <= info.State.LastSeq && info.State.Msgs > 0; seq++ {
		m, err := s.GetMsg(ctx, seq)
		require.NoError(t, err)
		out = append(out, m)
	}
	return out
}

// runRouter starts r and waits until it runs; it returns a stop function that
// cancels it and returns Run's error.
func runRouter(t *testing.T, r *bus.Router) (stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- r.Run(ctx) }()
	select {
	case <-r.Running():
	case err := <-errc:
		cancel()
		require.NoError(t, err, "router stopped before running")
	case <-time.After(10 * time.Second):
		cancel()
		t.Fatal("router not running after 10s")
	}
	var stopped bool
	var rerr error
	stop = func() error {
		if !stopped {
			stopped = true
			cancel()
			rerr = <-errc
		}
		return rerr
	}
	t.Cleanup(func() { _ = stop() })
	return stop
}

func wait[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(20 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
		var zero T
		return zero
	}
}

var (
	subjAlert  = contracts.SubjectAlert
	subjReport = contracts.SubjectReport
)

func benchNow() time.Time { return time.Now() }
