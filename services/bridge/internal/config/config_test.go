package config_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"agentk/services/bridge/internal/config"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestFromEnv(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	secretFile := filepath.Join(dir, "secret")
	require.NoError(t, os.WriteFile(secretFile, []byte("s3cret-from-file\n"), 0o600))
	approversFile := filepath.Join(dir, "approvers")
	require.NoError(t, os.WriteFile(approversFile, []byte("# on-call\nslack:U111=alice\nslack:U222=bob # secondary\n"), 0o600))

	tests := []struct {
		name    string
		env     map[string]string
		check   func(t *testing.T, c config.Config)
		wantErr []string
	}{
		{
			name: "console only",
			env:  map[string]string{"AGENTK_CONSOLE_TOKENS": "alice=aaaaaaaaaaaaaaaaaaaa"},
			check: func(t *testing.T, c config.Config) {
				require.Equal(t, config.DefaultAddr, c.Addr)
				require.Equal(t, config.DefaultSlackAPIURL, c.SlackAPIURL)
				require.False(t, c.SlackEnabled())
				require.Equal(t, []string{"alice"}, c.Approvers.Names())
			},
		},
		{
			name: "slack with secrets from files",
			env: map[string]string{
				"AGENTK_SLACK_BOT_TOKEN": "xoxb-1", "AGENTK_SLACK_SIGNING_SECRET_FILE": secretFile,
				"AGENTK_SLACK_CHANNEL": "C1", "AGENTK_APPROVERS_FILE": approversFile,
				"AGENTK_SLACK_API_URL": "http://127.0.0.1:9/api",
			},
			check: func(t *testing.T, c config.Config) {
				require.True(t, c.SlackEnabled())
				require.Equal(t, "s3cret-from-file", c.SlackSigningSecret)
				require.Equal(t, "http://127.0.0.1:9/api/", c.SlackAPIURL)
				n, ok := c.Approvers.BySlackID("U222")
				require.True(t, ok)
				require.Equal(t, "bob", n)
			},
		},
		{
			name: "every problem at once",
			env: map[string]string{
				"AGENTK_SLACK_BOT_TOKEN": "xoxb-1", "AGENTK_APPROVERS": "U111=alice,slack:nope=bob",
				"AGENTK_CONSOLE_TOKENS": "carol=short", "AGENTK_SLACK_API_URL": "ftp://x",
			},
			wantErr: []string{
				"AGENTK_SLACK_SIGNING_SECRET is required", "AGENTK_SLACK_CHANNEL is required",
				`"U111=alice": want slack:`, `"nope" is not a Slack user id`, "token of carol is shorter",
				"AGENTK_SLACK_API_URL: not an http(s) URL",
			},
		},
		{name: "no approvers", env: map[string]string{}, wantErr: []string{"no approvers"}},
		{
			name:    "value and file",
			env:     map[string]string{"AGENTK_CONSOLE_TOKENS": "a=bbbbbbbbbbbbbbbbbbbb", "AGENTK_CONSOLE_TOKENS_FILE": secretFile},
			wantErr: []string{"AGENTK_CONSOLE_TOKENS and AGENTK_CONSOLE_TOKENS_FILE are both set"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := config.FromEnv(env(tc.env))
			if tc.wantErr != nil {
				require.ErrorIs(t, err, config.ErrInvalid)
				for _, w := range tc.wantErr {
					require.Contains(t, err.Error(), w)
				}
				require.NotContains(t, err.Error(), "short\n", "tokens are never echoed")
				return
			}
			require.NoError(t, err)
			tc.check(t, c)
		})
	}
}
