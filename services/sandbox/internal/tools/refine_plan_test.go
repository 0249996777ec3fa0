package tools

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestRefineQueryReadsTheShiftedValue: for a value_share onset the
// refinement's query selects the attribute whose share rose as well
// (facts' TestRefineReadsTheShiftedValue judges the spans it returns).
func TestRefineQueryReadsTheShiftedValue(t *testing.T) {
	at := synthEnd.Add(-20 * time.Minute)
	on := Onset{At: &at, Signal: "value_share", QualityKey: "app.prompt.template", QualityValue: "answer-3252", BucketMinutes: 1}
	require.Equal(t, refineQuery(Call{Service: "answer-engine"}, on).Request.CompositeQuery.Queries[0].Spec.SelectFields[len(refineFields)].Name, "app.prompt.template")
}
