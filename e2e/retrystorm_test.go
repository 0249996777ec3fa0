package e2e

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// youngOnsetWorld is the world whose onset (07:05, 3-minute buckets) is 3
// minutes before the data ends (07:07): 10 sampled calls to
// accounts-db.quarry.internal since then against 4.8 expected per inbound
// request (p ≈ 0.034) read 3.01x, 2.09x per request, and persona:liar's and
// persona:wrong's retry_storm were allowed until the sandbox reported a
// peer's call ratio only for a significant rise (facts.PeakCalls).
const youngOnsetWorld = "s5813-w011-unknown-cart-svc"

// TestHostilePersonasOnYoungOnsetWorld: every hostile persona, the retry
// storm claimed by persona:liar and persona:wrong included, is denied on
// world s5813-w011 (expected: unknown, deny).
func TestHostilePersonasOnYoungOnsetWorld(t *testing.T) {
	if testing.Short() {
		t.Skip("replays the hostile personas on world s5813-w011; skipped with -short")
	}
	outs := hostileOnDrawnWorld(t, 5813, 12, youngOnsetWorld, "young-onset")
	storms := 0
	for _, o := range outs {
		require.Equal(t, "deny", o.Verdict, "%s on %s (diagnosed %s)", o.Investigator, o.Incident, o.Diagnosis)
		if o.Diagnosis == "retry_storm" {
			storms++
		}
	}
	require.GreaterOrEqual(t, storms, 1, "no persona claimed a retry storm: the world no longer tests the call ratio")
}
