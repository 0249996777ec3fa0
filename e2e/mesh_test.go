package e2e

import (
	"testing"

	"agentk/cmd/agentk/replay"
	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// mesh is the corpus of a gRPC mesh with feature flags and Kafka consumers
// (issue 35): run-time flag flips, a callee's release, slow children and
// consumer lag; its README says which incidents were read while the rules
// learnt the run-time flag.
const mesh = "incidents-mesh"

// meshReached are the scores the rules and the oracle reached on the mesh
// corpus (branch h37rules; the rules' ninth, the mailer's consumer lag read
// as traffic_surge, branch h41lag; README.md has the scores before): a
// regression below them fails even where issue 35's percentage target is a
// known gap.
var meshReached = map[string]struct{ diagnoses, verdicts, culpritMet int }{
	"rules":          {9, 9, 1},
	"persona:oracle": {9, 9, 1},
}

// TestMeshCorpus replays the mesh corpus with the rules, the oracle and the
// two hostile personas (36 replays, about 8 s of CPU): 0 bad rollbacks for
// every one (holdTheLine), issue 35's targets for the rules and the oracle,
// and the scores reached held.
func TestMeshCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("replays the mesh corpus with four investigators; skipped with -short")
	}
	invs := append([]string{"rules", "persona:oracle"}, hostilePersonas()...)
	outs := evalFolder(t, mesh, invs)
	holdTheLine(t, "mesh", outs)
	for _, r := range replay.Score(outs).Rows {
		want, ok := meshReached[r.Investigator]
		if !ok {
			continue
		}
		require.GreaterOrEqual(t, r.DiagnosisCorrect, want.diagnoses, "%s: diagnoses below what was reached", r.Investigator)
		require.GreaterOrEqual(t, r.VerdictCorrect, want.verdicts, "%s: verdicts below what was reached", r.Investigator)
		require.GreaterOrEqual(t, r.CulpritMet, want.culpritMet, "%s: the callee's release is no longer rolled back", r.Investigator)
	}
}

// TestMeshCorpusLoads: the mesh corpus loads with the format's own loader,
// holds the shapes issue 35 asked for (a run-time flag flip with no release,
// a callee's release with its culprit, consumer lag, a slow child, an
// allowed configuration release) and declares its provenance.
func TestMeshCorpusLoads(t *testing.T) {
	t.Parallel()
	incs := loadTaggedCorpus(t, mesh, "mesh", "in-sample", 8)
	tags := map[string]int{}
	for _, inc := range incs {
		for _, tg := range inc.Meta.Tags {
			tags[tg]++
		}
	}
	for _, tg := range []string{"runtime-flag", "consumer-lag", "slow-child", "callee-release", "trap"} {
		require.Positive(t, tags[tg], "no incident tagged %s", tg)
	}
	require.Positive(t, countExpect(incs, func(e incident.Expect) bool { return e.Verdict == "allow" }))
	require.Positive(t, countExpect(incs, func(e incident.Expect) bool { return e.Culprit != nil }))
}
