package e2e

import (
	"testing"

	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// heldout7Twins holds a twin of e2e/incidents-heldout7's DynamoDB trap (its
// README, "Twins"): the provisioned table throttled by another workload's
// Scan 80 s after entitlements-api 5.2.0 finished rolling out, the throttle
// an HTTP 400 on the node http instrumentation's attempt spans under the
// AWS SDK's span, whose exception says so.
const heldout7Twins = "incidents-heldout7-twins"

// TestHeldout7TwinsAreDenied replays every investigator on the heldout7
// twin: none may roll back (their diagnoses are not asserted). On main
// before the sandbox read a throttled 4xx as the peer's own failure, the
// rules', persona:liar's and persona:wrong's retry_storm, persona:marker's
// bad_release and persona:quality's config_regression were allowed (five
// bad rollbacks). With mutant sandbox.throttled_calls they are allowed
// again.
func TestHeldout7TwinsAreDenied(t *testing.T) {
	if testing.Short() {
		t.Skip("replays six investigators on the heldout7 twin; skipped with -short")
	}
	requireNoneRollsBack(t, heldout7Twins, 1)
}

// TestHeldout7TwinsCorpusLoads: the twin loads with the format's own
// loader, a trap, and the provenance declares it in sample (the fix was
// written against it).
func TestHeldout7TwinsCorpusLoads(t *testing.T) {
	t.Parallel()
	incs := loadTaggedCorpus(t, heldout7Twins, "twin", "in-sample", 1)
	require.Equal(t, len(incs), countExpect(incs, func(e incident.Expect) bool { return e.Verdict == "deny" }))
}
