package tools

import (
	"testing"
	"time"

	"agentk/contracts"

	"github.com/stretchr/testify/require"
)

// The builders split service_overview's responses at overviewQueries: it
// must be the number of queries the first stage sends, whatever is added to
// releaseQueries.
func TestOverviewQueriesIsTheFirstStage(t *testing.T) {
	t.Parallel()
	c := Call{Tool: contracts.ToolServiceOverview, Service: "api", StartsAt: time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)}
	require.Len(t, PlanCall(c, "http://signoz:8080", Limits{}).Queries, overviewQueries)
}

// The readers ask for a first-stage answer by its query's name
// (overviewLayout, planned for no call in particular): a call's own plan
// must put every query where that layout says, under a name no other
// query of the stage takes.
func TestOverviewLayoutIsTheFirstStage(t *testing.T) {
	t.Parallel()
	c := Call{Tool: contracts.ToolServiceOverview, Service: "api", StartsAt: time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC),
		Window: Window{From: time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC), To: time.Date(2026, 12, 2, 11, 0, 0, 0, time.UTC)}}
	qs := PlanCall(c, "http://signoz:8080", Limits{Exclude: []string{"agentk"}}).Queries
	require.Len(t, overviewLayout, len(qs))
	for i, q := range qs {
		require.Equal(t, i, overviewAt(q.Name), q.Name)
	}
	require.Panics(t, func() { overviewAt("no_such_query") })
	require.Panics(t, func() { layoutOf([]Query{{Name: "a"}, {Name: "a"}}) })
}
