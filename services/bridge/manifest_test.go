package bridge_test

import (
	"os"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/stretchr/testify/require"
)

// TestSlackManifestMatchesTheBridge: the app manifest in deploy/slack asks
// for exactly the scope the bridge's calls need and sends interactions to
// the route the bridge serves.
func TestSlackManifestMatchesTheBridge(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../deploy/slack/manifest.yaml")
	require.NoError(t, err)
	var m struct {
		OAuth struct {
			Scopes struct {
				Bot []string `yaml:"bot"`
			} `yaml:"scopes"`
		} `yaml:"oauth_config"`
		Settings struct {
			Interactivity struct {
				Enabled    bool   `yaml:"is_enabled"`
				RequestURL string `yaml:"request_url"`
			} `yaml:"interactivity"`
			EventSubscriptions any  `yaml:"event_subscriptions"`
			SocketMode         bool `yaml:"socket_mode_enabled"`
		} `yaml:"settings"`
	}
	require.NoError(t, yaml.Unmarshal(b, &m))
	require.Equal(t, []string{"chat:write"}, m.OAuth.Scopes.Bot, "chat.postMessage, chat.update; auth.test needs none")
	require.True(t, m.Settings.Interactivity.Enabled)
	require.Regexp(t, `^https://[^/]+/slack/interactions$`, m.Settings.Interactivity.RequestURL)
	require.Nil(t, m.Settings.EventSubscriptions, "the bridge subscribes to no events")
	require.False(t, m.Settings.SocketMode, "interactions come over HTTPS, signed")
}
