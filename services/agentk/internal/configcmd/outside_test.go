package configcmd

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"agentk/cmd/agentk/internal/command"
	"agentk/cmd/agentk/internal/command/commandtest"
	"agentk/contracts/incident"
	"agentk/services/sandbox/fakesignoz"

	"github.com/stretchr/testify/require"
)

// `agentk config` asks SigNoz with the sandbox's key: a key SigNoz refuses
// fails the command and says so; the right key passes. Run with the
// smallest configuration docs/setup.md gives.
func TestConfigSaysSigNozRefusesTheKey(t *testing.T) {
	inc, err := incident.Load(filepath.Join(repoRoot, "e2e", "incidents", "bad-release-01"))
	require.NoError(t, err)
	srv := httptest.NewServer(fakesignoz.New(inc, fakesignoz.Options{APIKey: "the-right-key"}))
	t.Cleanup(srv.Close)
	for _, tc := range []struct {
		name, key, want string
		code            int
	}{
		{name: "key refused", key: "a-wrong-key", want: "signoz        FAILED", code: 1},
		{name: "key accepted", key: "the-right-key", want: "signoz        ok: answers with the key", code: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{
				"AGENTK_INGEST_LOCAL_ONLY": "true", "AGENTK_SIGNOZ_URL": srv.URL, "AGENTK_SIGNOZ_API_KEY": tc.key,
				"AGENTK_SANDBOX_SERVICES": "shop-api", "AGENTK_DEPLOYER_SERVICES": "shop-api",
				"AGENTK_CONSOLE_TOKENS": "oncall=0123456789abcdef0123", "AGENTK_DATA_DIR": t.TempDir(),
				"AGENTK_HEALTH_ADDR": "127.0.0.1:1",
			}
			c, out, errb := commandtest.New(env)
			c.ListEnv = func() []string { return nil }
			require.Equal(t, tc.code, command.Run(context.Background(), c, []string{"config"}), "%s%s", out, errb)
			require.Contains(t, out.String(), tc.want)
		})
	}
}
