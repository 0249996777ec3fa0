package sandbox_test

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"agentk/contracts/envelope"
	"agentk/platform/fabric"
	"agentk/platform/health"
	"agentk/services/sandbox"
	"agentk/services/sandbox/fakesignoz"
)

// TestReadinessSaysSigNozRefusesTheKey: against a SigNoz that requires a key,
// the sandbox is not ready with the wrong key (and /readyz names SigNoz's
// answer), not ready when SigNoz is unreachable, and ready with the right key.
func TestReadinessSaysSigNozRefusesTheKey(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	now := time.Date(2026, 11, 30, 10, 20, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	srv := httptest.NewServer(fakesignoz.New(nil, fakesignoz.Options{APIKey: "read-only", Now: clock}))
	t.Cleanup(srv.Close)
	gone := httptest.NewServer(nil)
	goneURL := gone.URL
	gone.Close()
	f, err := fabric.StartEmbedded(ctx, fabric.Options{DataDir: t.TempDir(), Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.Close() })

	for _, tc := range []struct {
		name, url, key string
		ready          bool
		failing        string
	}{
		{"key refused", srv.URL, "wrong-key", false, "HTTP 401"},
		{"signoz unreachable", goneURL, "read-only", false, "unavailable"},
		{"key accepted", srv.URL, "read-only", true, ""},
	} {
		env := map[string]string{"AGENTK_SIGNOZ_URL": tc.url, "AGENTK_SIGNOZ_API_KEY": tc.key}
		d, err := f.Deps(ctx, envelope.RoleSandbox, clock, func(k string) string { return env[k] })
		require.NoError(t, err)
		d.Logger = slog.New(slog.DiscardHandler)
		check := health.New("sandbox", nil)
		reported := make(chan error, 4)
		d.Ready = check.Ready
		d.Dependency = func(name string, err error) {
			check.Dependency(name, err)
			if name == sandbox.DependencySigNoz {
				reported <- err
			}
		}
		sctx, scancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- sandbox.Run(sctx, d) }()
		select {
		case <-reported:
		case err := <-done:
			t.Fatalf("%s: sandbox stopped: %v", tc.name, err)
		case <-ctx.Done():
			t.Fatalf("%s: the probe never reported", tc.name)
		}
		st := check.Status()
		require.Equal(t, tc.ready, st.Ready, tc.name)
		if tc.failing != "" {
			require.Contains(t, st.Failing[sandbox.DependencySigNoz], tc.failing, tc.name)
		}
		scancel()
		require.NoError(t, <-done)
	}
}

// TestCheckSigNoz is what `agentk config` can call: the same probe, once.
func TestCheckSigNoz(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 30, 10, 20, 0, 0, time.UTC)
	srv := httptest.NewServer(fakesignoz.New(nil, fakesignoz.Options{APIKey: "read-only", Now: func() time.Time { return now }}))
	defer srv.Close()
	env := func(key string) func(string) string {
		return func(k string) string {
			return map[string]string{"AGENTK_SIGNOZ_URL": srv.URL, "AGENTK_SIGNOZ_API_KEY": key}[k]
		}
	}
	require.NoError(t, sandbox.CheckSigNoz(t.Context(), env("read-only"), now))
	require.ErrorContains(t, sandbox.CheckSigNoz(t.Context(), env("wrong"), now), "HTTP 401")
}
