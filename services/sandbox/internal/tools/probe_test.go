package tools_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// TestProbeOnsets prints, for every incident folder under
// $AGENTK_ONSET_PROBE, the overview's onset and the markers of the alert's
// service (or of $AGENTK_ONSET_PROBE_SVC: a callee named as the culprit): a
// diagnostic for looking at a corpus, skipped without the variable.
func TestProbeOnsets(t *testing.T) {
	dir := os.Getenv("AGENTK_ONSET_PROBE")
	if dir == "" {
		t.Skip("AGENTK_ONSET_PROBE not set")
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	only := os.Getenv("AGENTK_ONSET_PROBE_ONLY")
	for _, e := range entries {
		if !e.IsDir() || (only != "" && !strings.Contains(e.Name(), only)) {
			continue
		}
		inc, err := incident.Load(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		startsAt := alertStart(t, inc.AlertJSON)
		h := newHarness(t, inc, startsAt)
		if !inc.Meta.Now.IsZero() {
			h.now = inc.Meta.Now
		}
		name := inc.Meta.Service
		if o := os.Getenv("AGENTK_ONSET_PROBE_SVC"); o != "" {
			name = o
		}
		svc := `{"service":"` + name + `"}`
		ov, err := h.run(t, contracts.ToolServiceOverview, svc)
		require.NoError(t, err)
		mk, err := h.run(t, contracts.ToolDeploymentMarkers, svc)
		require.NoError(t, err)
		var marks []string
		for _, m := range mk.out.Facts.DeploymentMarkers {
			marks = append(marks, m.At.UTC().Format("15:04:05"))
		}
		on := "none"
		if ov.out.Facts.Onset != nil {
			on = ov.out.Facts.Onset.UTC().Format("15:04:05")
		}
		fmt.Printf("PROBE %s pooled=%v expect=%s alert=%s onset=%s markers=%v unknown=%q\n", e.Name(), strings.Contains(ov.out.Compact, "; pooled: "), inc.Meta.Expect.Verdict, startsAt.UTC().Format("15:04:05"), on, marks, ov.out.Facts.OnsetUnknown)
		if os.Getenv("AGENTK_ONSET_PROBE_V") != "" {
			fmt.Println(ov.out.Compact)
		}
	}
}

func alertStart(t *testing.T, alert []byte) time.Time {
	var a struct {
		Alerts []struct {
			StartsAt time.Time `json:"startsAt"`
		} `json:"alerts"`
	}
	require.NoError(t, json.Unmarshal(alert, &a))
	return a.Alerts[0].StartsAt
}
