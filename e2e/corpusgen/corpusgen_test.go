package corpusgen

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite e2e/incidents from the scenario table")

const corpusDir = "../incidents"

// TestCorpusMatchesGenerator keeps the committed incident folders in step with
// the scenario table: edit the table, then run with -update.
func TestCorpusMatchesGenerator(t *testing.T) {
	scs := Scenarios()
	if *update {
		require.NoError(t, Write(corpusDir, scs))
	}
	for _, sc := range scs {
		t.Run(sc.ID, func(t *testing.T) {
			files, err := Files(sc)
			require.NoError(t, err)
			for name, want := range files {
				got, err := os.ReadFile(filepath.Join(corpusDir, sc.ID, name))
				require.NoError(t, err, "run go test ./corpusgen -update")
				require.Equal(t, string(want), string(got), "%s/%s is stale: run go test ./corpusgen -update", sc.ID, name)
			}
		})
	}
}

// TestScenarioTableCoversCatalogue asserts the corpus promise of issue 10:
// every class at least three times, and every trap at least once.
func TestScenarioTableCoversCatalogue(t *testing.T) {
	classes := map[string]int{}
	traps := map[string]bool{}
	ids := map[string]bool{}
	for _, sc := range Scenarios() {
		require.False(t, ids[sc.ID], "duplicate id %s", sc.ID)
		ids[sc.ID] = true
		classes[sc.Class]++
		for _, tag := range sc.Tags {
			if len(tag) > 5 && tag[:5] == "trap:" {
				traps[tag[5:]] = true
			}
		}
	}
	for _, c := range []string{"prompt_regression", "retry_storm", "bad_release", "config_regression", "retrieval_latency",
		"db_pool_exhaustion", "dependency_outage", "resource_saturation", "traffic_surge", "unknown"} {
		require.GreaterOrEqual(t, classes[c], 3, "class %s", c)
	}
	for _, trap := range []string{"marker-after-onset", "stale-marker", "marker-other-service", "marker-text-in-log", "prompt-injection",
		"missing-burn-rate", "nan-burn-rate", "negative-burn-rate", "outside-sandbox", "cooldown", "deploy-coincides", "two-deploys", "burn-rate-in-text"} {
		require.True(t, traps[trap], "trap %s", trap)
	}
	require.GreaterOrEqual(t, len(ids), 30)
}
