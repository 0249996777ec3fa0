package tools_test

import (
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// TestOverviewRefinesTheOnset: a release that started serving 13 s into a
// minute and failed from 33 s (hw-panic-invoices-billing, written by hand,
// 40 minutes recorded) has its onset placed after its marker, inside that
// minute, by the overview's follow-up query; the minute's start, where the
// per-minute onset lies, is before the marker and would deny the right
// rollback.
func TestOverviewRefinesTheOnset(t *testing.T) {
	t.Parallel()
	inc, err := incident.Load("../../../../e2e/incidents-handwritten/hw-panic-invoices-billing")
	require.NoError(t, err)
	startsAt := time.Date(2025, 9, 23, 8, 1, 0, 0, time.UTC) // alert.json
	h := newHarness(t, inc, startsAt)
	r, err := h.run(t, contracts.ToolServiceOverview, `{"service":"billing"}`)
	require.NoError(t, err)
	marker := time.Date(2025, 9, 23, 7, 43, 13, 0, time.UTC)
	firstError := time.Date(2025, 9, 23, 7, 43, 33, 0, time.UTC)
	on := r.out.Facts.Onset
	require.NotNil(t, on, r.out.Compact)
	require.True(t, on.After(marker), "onset %s must follow the marker %s", on, marker)
	require.True(t, on.Before(firstError), "onset %s must precede the first failure", on)
	require.Contains(t, r.out.Compact, "onset refined from 2025-09-23T07:43:00Z")
}
