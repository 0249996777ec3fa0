package tools_test

import (
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// TestRetriesPlaceTheOnset: a release whose SDK now retries inside one span
// (ho2-inspan-retries-release-menu-writer: llm.client.retry_count 0.02 →
// 0.60 a call, almost no errors, a noisy p95) had no onset, and the overview
// stopped before it measured the retries. The retries per inbound request
// place it now, after the marker (refined inside its bucket by the spans
// that retried), and the retry rise is measured from it.
func TestRetriesPlaceTheOnset(t *testing.T) {
	t.Parallel()
	inc, err := incident.Load("../../../../e2e/incidents-heldout2/ho2-inspan-retries-release-menu-writer")
	require.NoError(t, err)
	startsAt := time.Date(2026, 11, 19, 8, 16, 15, 117003219, time.UTC) // alert.json
	h := newHarness(t, inc, startsAt)
	r, err := h.run(t, contracts.ToolServiceOverview, `{"service":"menu-writer"}`)
	require.NoError(t, err)
	marker := time.Date(2026, 11, 19, 8, 7, 10, 117003219, time.UTC)
	on := r.out.Facts.Onset
	require.NotNil(t, on, r.out.Compact)
	require.True(t, on.After(marker), "onset %s must follow the marker %s", on, marker)
	require.True(t, on.Before(marker.Add(3*time.Minute)), "onset %s", on)
	require.Contains(t, r.out.Compact, "retries per inbound request, no error or latency departure earlier")
	require.NotNil(t, r.out.Facts.Retries, r.out.Compact)
	t.Log(r.out.Compact[:min(len(r.out.Compact), 1500)])
}
