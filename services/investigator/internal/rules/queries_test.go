package rules

import (
	"encoding/json"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/services/investigator/internal/loop"

	"github.com/stretchr/testify/require"
)

// TestFollowUpsSplitAtTheOnset: the latency and host follow-ups compare
// before and after the onset the overview measured; with none, "after"
// starts at the alert and "before" ends NoOnsetLead earlier, so that it holds
// none of the regression's first minutes. Ended at the alert, the baseline of
// s18-w097 cut to 20 min before its onset held 3.5 slow minutes of its
// retrieval call, which then grew too little to count as slowed, and its
// few timeouts read as a dependency outage.
func TestFollowUpsSplitAtTheOnset(t *testing.T) {
	t.Parallel()
	startsAt := time.Date(2027, 1, 14, 18, 31, 54, 0, time.UTC)
	onset := startsAt.Add(-4 * time.Minute)
	tests := []struct {
		name              string
		onset             *time.Time
		beforeTo, afterAt time.Time
	}{
		{"an onset measured", &onset, onset, onset},
		{"no onset measured", nil, startsAt.Add(-NoOnsetLead), startsAt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := loop.State{Alert: contracts.AlertV1{Service: "ledger", StartsAt: startsAt}, Evidence: []loop.Evidence{
				{EvidenceV1: contracts.EvidenceV1{ID: "ov", Tool: contracts.ToolServiceOverview, Facts: contracts.Facts{Onset: tt.onset}}}}}
			for turn := range 2 {
				reqs, err := followUps(s, turn)
				require.NoError(t, err)
				for _, r := range reqs {
					var a contracts.ToolArgs
					require.NoError(t, json.Unmarshal(r.Arguments, &a))
					if a.To != nil {
						require.True(t, a.To.Equal(tt.beforeTo), "%s ends at %s, want %s", r.ID, a.To, tt.beforeTo)
					}
					if a.From != nil {
						require.True(t, a.From.Equal(tt.afterAt), "%s starts at %s, want %s", r.ID, a.From, tt.afterAt)
					}
				}
			}
		})
	}
}
