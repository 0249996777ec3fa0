package cli

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"agentk/platform/bus"
	"agentk/platform/fabric"
	"agentk/platform/topology"

	"github.com/stretchr/testify/require"
)

// TestOperatorAgainstComposeLayout is docs/deploy.md's "Operator commands
// against the compose stack": a NATS server elsewhere (the compose stack's,
// published on loopback), and on this host only what scripts/keys.sh leaves
// in .data/keys (seeds and keyring, no embedded store). The commands reach
// that server, by AGENTK_NATS_URL or by the default loopback port.
func TestOperatorAgainstComposeLayout(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// Sized by its own provisioning (as the compose stack's provision
	// container does it); the operator's commands must leave that alone.
	srv, err := fabric.StartEmbedded(ctx, fabric.Options{DataDir: t.TempDir(), Logger: slog.New(slog.DiscardHandler), Provision: bus.ProvisionConfig{MaxAge: 2 * time.Hour}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Close() })
	u, err := url.Parse(srv.URL())
	require.NoError(t, err)

	// The host's .data: keys only, copied as keys.sh leaves them.
	host := t.TempDir()
	keys := filepath.Join(host, "keys")
	require.NoError(t, os.MkdirAll(keys, 0o700))
	src := srv.Identities().Dir()
	entries, err := os.ReadDir(src)
	require.NoError(t, err)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(keys, e.Name()), b, 0o600))
	}

	cases := []struct {
		name string
		env  map[string]string
	}{
		{name: "AGENTK_NATS_URL, as documented", env: map[string]string{"AGENTK_NATS_URL": srv.URL(), "AGENTK_KEYS_DIR": keys, "AGENTK_DATA_DIR": host}},
		{name: "the default loopback port", env: map[string]string{"AGENTK_NATS_PORT": u.Port(), "AGENTK_DATA_DIR": host}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, cmd := range [][]string{{"incidents"}, {"decisions"}} {
				c, out, errb := testCLI(tc.env)
				require.Equal(t, 0, run(ctx, c, cmd), errb.String())
				require.NotEmpty(t, out.String())
			}
			_, err := os.Stat(filepath.Join(host, "nats"))
			require.ErrorIs(t, err, os.ErrNotExist, "no embedded store was started on the host")
			adm, err := srv.Admin(ctx)
			require.NoError(t, err)
			defer func() { _ = adm.Close() }()
			for _, st := range topology.Streams {
				s, err := adm.JetStream().Stream(ctx, st.Name)
				require.NoError(t, err)
				require.Equal(t, 2*time.Hour, s.CachedInfo().Config.MaxAge, "%s re-provisioned by an operator's command", st.Name)
			}
		})
	}
}

// The compose file publishes NATS on loopback only, where the documented
// operator commands find it, and nowhere else.
func TestComposePublishesNATSOnLoopback(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join(repoRoot, "docker-compose.yml"))
	require.NoError(t, err)
	require.Regexp(t, regexp.MustCompile(`(?m)^  nats:\n(?:    .*\n|\s*\n)*?    ports:\n(?:\s*#.*\n)*\s*- "\$\{AGENTK_NATS_PUBLISH:-127\.0\.0\.1:4222\}:4222"`), string(b))
}

// TestConfigInTheOperatorsShell (issue 34 #2): `agentk config` with
// docs/deploy.md's exports checks what the operator's commands need (NATS as
// the admin, the bridge's API with the approver token) and passes, instead of
// reading the services' configuration from a shell that holds none of their
// secrets and calling four healthy services INVALID. A token the bridge
// refuses, or a NATS that does not answer, fails it naming the cause.
func TestConfigInTheOperatorsShell(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv, err := fabric.StartEmbedded(ctx, fabric.Options{DataDir: t.TempDir(), Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Close() })
	const token = "0123456789abcdef0123"
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/decisions" || r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		_, _ = w.Write([]byte("[]"))
	}))
	t.Cleanup(api.Close)
	exports := func(tok string) map[string]string {
		return map[string]string{"AGENTK_NATS_URL": srv.URL(), "AGENTK_KEYS_DIR": srv.Identities().Dir(), "AGENTK_DATA_DIR": t.TempDir(),
			"AGENTK_CONSOLE_URL": api.URL, "AGENTK_APPROVER_TOKEN": tok, "AGENTK_HEALTH_ADDR": "127.0.0.1:1"}
	}

	c, out, errb := testCLI(exports(token))
	require.Equal(t, 0, run(ctx, c, []string{"config"}), "%s%s", out, errb)
	require.Contains(t, out.String(), "docker-compose exec -T <service> agentk config --service <service>")
	require.Regexp(t, `nats +ok: `, out.String())
	require.Regexp(t, `bridge api +ok: `, out.String())
	require.NotContains(t, out.String(), "INVALID")

	c, out, errb = testCLI(exports("not-the-token-at-all"))
	require.Equal(t, 1, run(ctx, c, []string{"config"}), "%s%s", out, errb)
	require.Contains(t, out.String(), "refuses AGENTK_APPROVER_TOKEN (HTTP 401)")

	bad := exports(token)
	bad["AGENTK_NATS_URL"], bad["AGENTK_CONNECT_TIMEOUT"] = "nats://127.0.0.1:1", "2s"
	c, out, errb = testCLI(bad)
	require.Equal(t, 1, run(ctx, c, []string{"config"}), "%s%s", out, errb)
	require.Contains(t, out.String(), "nats          FAILED")

	// --all still checks every service against this shell: here, as before,
	// the services' own variables are missing.
	c, out, _ = testCLI(exports(token))
	require.Equal(t, 1, run(ctx, c, []string{"config", "--all"}))
	require.Contains(t, out.String(), "INVALID")
}
