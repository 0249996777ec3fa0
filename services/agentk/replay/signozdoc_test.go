package replay_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"agentk/cmd/agentk/replay"

	"github.com/stretchr/testify/require"
)

const repoRoot = "../../.."

// TestSigNozDocFollowedLiterally is issue 19's configuration defect: with
// docs/signoz.md followed exactly (only AGENTK_SIGNOZ_URL and the API key
// file set), the reviewer's base URL stayed at localhost:8080, every claim
// was dropped as "not under the configured SigNoz" and every rollback was
// denied. The replay sets exactly the doc's variables (SigNozEnv) and a
// deployment-class incident must be allowed.
func TestSigNozDocFollowedLiterally(t *testing.T) {
	if testing.Short() {
		t.Skip("replays an incident")
	}
	t.Setenv("AGENTK_OTEL_DISABLED", "1")
	doc, err := os.ReadFile(filepath.Join(repoRoot, "docs", "signoz.md"))
	require.NoError(t, err)
	documented := map[string]bool{}
	for _, m := range regexp.MustCompile(`AGENTK_[A-Z_]+`).FindAllString(string(doc), -1) {
		documented[m] = true
	}
	env := replay.SigNozEnv("http://127.0.0.1:1", "/run/secrets/signoz_api_key")
	for k := range env {
		require.True(t, documented[k], "the replay sets %s, which docs/signoz.md never tells an operator to set", k)
	}
	require.NotContains(t, env, "AGENTK_SIGNOZ_BASE_URL", "the doc sets it only when users reach the UI elsewhere")
	require.NotContains(t, env, "AGENTK_SIGNOZ_API_KEY", "the doc gives the key as a file")

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := replay.Run(ctx, filepath.Join(repoRoot, "e2e", "incidents", "bad-release-01"), replay.Options{})
	require.NoError(t, err)
	require.Equal(t, "allow", res.Verdict, "failed checks: %v", res.FailedChecks)
	require.Empty(t, res.FailedChecks)
}
