package facts_test

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"agentk/services/sandbox/internal/facts"
)

func TestConfigChangeVocabulary(t *testing.T) {
	t.Parallel()
	require.NotContains(t, facts.ConfigChangeVocabulary, `\`)
	re := regexp.MustCompile(facts.ConfigChangeVocabulary)
	for _, s := range []string{
		"Flag configuration changed: [points-multiplier-v3] (flagd sync, selector=loyalty)",
		"flag catalog.listing_v2 changed: off -> on (source=flagd sync)",
		"provider event PROVIDER_CONFIGURATION_CHANGED flagsChanged=[checkout.v2]",
		"Refresh keys changed: [payments.timeout]",
		"feature flag 'new-pricing' toggled on by ops@example.com",
		"unleash: toggles updated (3)",
		"configuration reloaded from /etc/app/config.yaml",
	} {
		require.True(t, re.MatchString(s), s)
	}
	for _, s := range []string{
		"Flag configuration loaded: 14 flags (flagd sync, selector=loyalty)",
		"provider ready: PROVIDER_READY",
		"ranker lookup failed: model ltr_v9 not loaded (flag ranker.ltr_v9=on)",
		"password changed for user 42",
		"HTTP Request to /loyalty/accruals failed, error id: 1f2e-3",
	} {
		require.False(t, re.MatchString(s), s)
	}
}
