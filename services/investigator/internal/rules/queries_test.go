package rules

import (
	"encoding/json"
	"strings"
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

// TestOrdinaryQueries: the third turn counts the ordinary entry spans (no
// error, under SlowRatio times the slowest entry span's p95 before the
// onset) from the onset to the alert's start, and over as long a window
// before the onset, at least OrdinaryBaseline. The incident window runs on
// past now, so the window after ends at the alert, which the recording
// holds in full. No query when the first turn measured no entry span
// before the onset, or the onset lies under OrdinaryAfter before the alert.
func TestOrdinaryQueries(t *testing.T) {
	t.Parallel()
	startsAt := time.Date(2027, 1, 14, 18, 31, 54, 0, time.UTC)
	before := func(rows ...string) loop.Evidence {
		to := startsAt.Add(-20 * time.Minute)
		b, _ := json.Marshal(contracts.ToolArgs{Service: "ledger", Aggregation: "p95", GroupBy: []string{"name", "kind_string"}, To: &to})
		return loop.Evidence{EvidenceV1: contracts.EvidenceV1{ID: "b", Tool: contracts.ToolAggregateTraces, Arguments: b,
			Compact: "tool: aggregate_traces\n<<<DATA rows=n\n" + strings.Join(rows, "\n") + "\nDATA>>>"}}
	}
	server := before(`{"name":"GET /a","kind_string":"Server","p95_ms":120}`, `{"name":"POST /b","kind_string":"Consumer","p95_ms":300}`, `{"name":"SELECT","kind_string":"Client","p95_ms":900}`)
	tests := []struct {
		name       string
		onsetAgo   time.Duration
		evidence   loop.Evidence
		from       time.Duration // before the onset
		cut        string
		noneWanted bool
	}{
		{"onset 4 min before the alert: 10 min before it", 4 * time.Minute, server, 10 * time.Minute, "600000000", false},
		{"onset 14 min before the alert: 14 min before it", 14 * time.Minute, server, 14 * time.Minute, "600000000", false},
		{"onset a minute before the alert: unmeasured", time.Minute, server, 0, "", true},
		{"no entry span measured before the onset", 4 * time.Minute, before(`{"name":"SELECT","kind_string":"Client","p95_ms":900}`), 0, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			onset := startsAt.Add(-tt.onsetAgo)
			s := loop.State{Alert: contracts.AlertV1{Service: "ledger", StartsAt: startsAt}, Evidence: []loop.Evidence{tt.evidence}}
			ids, args := ordinaryQueries(s, "ledger", onset, onset)
			if tt.noneWanted {
				require.Empty(t, ids)
				return
			}
			require.Equal(t, []string{qOrdinaryBefore, qOrdinaryAfter}, ids)
			require.True(t, args[0].From.Equal(onset.Add(-tt.from)) && args[0].To.Equal(onset), "before: %s..%s", args[0].From, args[0].To)
			require.True(t, args[1].From.Equal(onset) && args[1].To.Equal(startsAt), "after: %s..%s", args[1].From, args[1].To)
			for i, a := range args {
				require.Contains(t, a.Filter, "has_error = false AND duration_nano < "+tt.cut)
				e := loop.Evidence{EvidenceV1: contracts.EvidenceV1{Tool: contracts.ToolAggregateTraces}}
				e.Arguments, _ = json.Marshal(a)
				require.Equal(t, ids[i], queryOf(e), "queryOf tells the two apart")
			}
		})
	}
}
