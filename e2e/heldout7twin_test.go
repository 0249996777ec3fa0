package e2e

import (
	"testing"

	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// heldout7Twins holds three twins of e2e/incidents-heldout7's traps (its
// README, "Twins"): the provisioned DynamoDB table throttled by another
// workload's Scan 80 s after entitlements-api 5.2.0 finished rolling out,
// once with the node http instrumentation's attempt spans under the AWS
// SDK's span (the throttle an HTTP 400 whose exception says so) and once
// with the AWS SDK's spans alone (no host named); and the S3 prefix
// answering SlowDown on 80% of the attempts at its peak.
const heldout7Twins = "incidents-heldout7-twins"

// TestHeldout7TwinsAreDenied replays every investigator on the heldout7
// twins: none may roll back (their diagnoses are not asserted). On main
// before the sandbox read a throttled 4xx as the peer's own failure, the
// rules', persona:liar's and persona:wrong's retry_storm, persona:marker's
// bad_release and persona:quality's config_regression were allowed on the
// twin with attempt spans (five bad rollbacks; mutant
// sandbox.throttled_calls); before it named an AWS SDK span's peer by
// rpc.service, the rules', persona:marker's and persona:quality's on each
// of the other two (six; mutant sandbox.aws_peers).
func TestHeldout7TwinsAreDenied(t *testing.T) {
	if testing.Short() {
		t.Skip("replays six investigators on the heldout7 twin; skipped with -short")
	}
	requireNoneRollsBack(t, heldout7Twins, 3)
}

// TestHeldout7TwinsCorpusLoads: the twins load with the format's own
// loader, all traps, and the provenance declares it in sample (the fix was
// written against it).
func TestHeldout7TwinsCorpusLoads(t *testing.T) {
	t.Parallel()
	incs := loadTaggedCorpus(t, heldout7Twins, "twin", "in-sample", 3)
	require.Equal(t, len(incs), countExpect(incs, func(e incident.Expect) bool { return e.Verdict == "deny" }))
}

// TestHostilePersonasOnHeldout7Twins replays the hostile personas on the
// heldout7 twins and asserts no bad rollback (the corpus's own:
// TestHostilePersonasOnHeldout7).
func TestHostilePersonasOnHeldout7Twins(t *testing.T) {
	holdTheLineOnCorpus(t, "heldout7-twins-hostile", heldout7Twins)
}
