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
