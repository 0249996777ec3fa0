package operator

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"agentk/cmd/agentk/internal/chain"
)

// TestDecisionsSayTheAlertResolved (issue 34 #3): a pending decision whose
// alert resolved says so in its row, and below the table with the command
// that approves it anyway; one whose alert fires says firing.
func TestDecisionsSayTheAlertResolved(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 30, 10, 20, 0, 0, time.UTC)
	resolved := now.Add(-3*time.Minute + 400*time.Millisecond)
	rows := []chain.Decision{
		{DecisionID: "dec-1", IncidentID: "inc-a", Service: "shop-api", Action: "rollback", ExpiresAt: now.Add(10 * time.Minute)},
		{DecisionID: "dec-2", IncidentID: "inc-b", Service: "cart", Action: "rollback", ExpiresAt: now.Add(12 * time.Minute), AlertResolvedAt: resolved},
	}
	var b bytes.Buffer
	require.NoError(t, printDecisions(&b, rows, now, false))
	out := b.String()
	require.Regexp(t, `(?m)^dec-1 .* firing `, out)
	require.Regexp(t, `(?m)^dec-2 .* resolved 2026-11-30T10:17:00Z `, out)
	require.Contains(t, out, "the alert of inc-b resolved at 2026-11-30T10:17:00Z: a plain approve is refused; to roll back anyway: agentk approve --confirm-resolved 2026-11-30T10:17:00Z dec-2\n")
	require.NotContains(t, out, "the alert of inc-a")

	b.Reset()
	require.NoError(t, printDecisions(&b, rows, now, true))
	require.Contains(t, b.String(), `"alert_resolved_at":"2026-11-30T10:17:00.4Z"`)
}
