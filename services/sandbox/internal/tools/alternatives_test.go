package tools_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"agentk/contracts"
	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// TestAlternativeExplanationsOnCorpus runs service_overview over every recorded
// incident and checks the facts that point away from a release: a traffic
// surge shows as a high inbound traffic ratio, a shared dependency as other
// services regressing with this one, and neither shows where a release is to blame.
func TestAlternativeExplanationsOnCorpus(t *testing.T) {
	entries, err := os.ReadDir(corpus)
	if os.IsNotExist(err) {
		t.Skip("no e2e corpus next to this module")
	}
	require.NoError(t, err)
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		t.Run(e.Name(), func(t *testing.T) {
			full, err := incident.Load(filepath.Join(corpus, e.Name()))
			require.NoError(t, err)
			inc, startsAt := loadIncident(t, e.Name())
			h := newHarness(t, inc, startsAt)
			res, err := h.run(t, contracts.ToolServiceOverview, fmt.Sprintf(`{"service":%q}`, inc.Meta.Service))
			require.NoError(t, err)
			f := res.out.Facts
			class := full.Meta.Expect.RootCause
			if class == "unknown" {
				return // nothing conclusive, by design
			}
			require.NotNil(t, f.Onset, "an onset must be found for %s", class)
			require.True(t, f.Onset.Before(startsAt), "onset %s must precede the alert %s", f.Onset, startsAt)
			require.NotNil(t, f.TrafficRatio)
			t.Logf("%-44s onset %s traffic %.2fx co-regressed %v", e.Name(), f.Onset.Format("15:04"), *f.TrafficRatio, f.CoRegressed)
			if class == "traffic_surge" {
				require.GreaterOrEqual(t, *f.TrafficRatio, 3.0)
			} else {
				require.Less(t, *f.TrafficRatio, 2.0)
			}
			deploymentClass := map[string]bool{"bad_release": true, "retry_storm": true, "prompt_regression": true, "config_regression": true}
			if deploymentClass[class] {
				require.Empty(t, f.CoRegressed, "a release fault must not look shared")
			}
		})
	}
}
