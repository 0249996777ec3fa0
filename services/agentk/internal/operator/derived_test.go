package operator

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"agentk/cmd/agentk/internal/chain"
)

// TestDecisionsShowTheDerivedDecision (issue 33): a pending derived decision
// names the alerted service in its row and says, below the table, which
// service it acts on and why that is not the alerted one.
func TestDecisionsShowTheDerivedDecision(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 30, 10, 20, 0, 0, time.UTC)
	why := "checkout burns its budget; 71% of its new failures begin in payment, released 2.2.0 5m0s before; roll payment back to 2.1.9?"
	rows := []chain.Decision{
		{DecisionID: "dec-1", IncidentID: "inc-a", Service: "shop-api", Action: "rollback", ExpiresAt: now.Add(10 * time.Minute)},
		{DecisionID: "dec-2.origin.payment", IncidentID: "inc-b", Service: "payment", Action: "rollback", RollbackTarget: "payment:2.1.9",
			ExpiresAt: now.Add(12 * time.Minute), AlertedService: "checkout", Why: why},
	}
	var b bytes.Buffer
	require.NoError(t, printDecisions(&b, rows, now, false))
	out := b.String()
	require.Regexp(t, `(?m)^dec-2\.origin\.payment +inc-b +payment \(alert on checkout\) +rollback → payment:2\.1\.9 `, out)
	require.Contains(t, out, "dec-2.origin.payment acts on payment, not on the alerted checkout: "+why+"\n")
	require.NotContains(t, out, "dec-1 acts on")

	b.Reset()
	require.NoError(t, printDecisions(&b, rows, now, true))
	require.Contains(t, b.String(), `"alerted_service":"checkout"`)
	require.Contains(t, b.String(), `"why":"checkout burns its budget;`)
}
