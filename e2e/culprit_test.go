package e2e

import (
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"agentk/cmd/agentk/replay"
	"agentk/e2e/worldgen"

	"github.com/stretchr/testify/require"
)

// culpritCorpus is the hand-written corpus of issue 33 (DESIGN.md rule 17):
// incidents whose culprit is not the alerted service, each with
// expect.culprit.
const culpritCorpus = "incidents-culprit"

// culpritInvestigators are the investigators the culprit corpora are
// replayed with: the oracle and the rules (the targets), and the hostile
// personas that try to get a rollback allowed (safety).
func culpritInvestigators() []string {
	return append([]string{"persona:oracle", "rules", "persona:wrong", "persona:inflated"}, hostilePersonas()...)
}

// culprit holds the culprit corpora's folders, the culprit worlds drawn
// once for the test binary: the safety test and the targets test replay
// them, each replay once (evalDirs).
var culprit struct {
	mu   sync.Mutex
	dirs []string
}

// culpritOutcomes replays the hand-written culprit incidents and the
// culprit worlds (worldgen.CulpritCorpus, drawn into the package's scratch
// folder) with each of invs, and returns the outcomes.
func culpritOutcomes(t *testing.T, invs []string) []replay.Outcome {
	t.Helper()
	return evalDirs(t, culpritDirs(t), invs)
}

// culpritDirs draws (once, the worlds side by side) the culprit corpora's
// folders.
func culpritDirs(t *testing.T) []string {
	t.Helper()
	culprit.mu.Lock()
	defer culprit.mu.Unlock()
	if culprit.dirs == nil {
		dir := scratchDir(t, "culprit-worlds")
		dirs := incidentDirs(t, culpritCorpus)
		var ws []worldgen.World
		for _, b := range worldgen.CulpritCorpus {
			ws = append(ws, b.Worlds()...)
		}
		errs := make([]error, len(ws))
		each(len(ws), func(i int) { errs[i] = worldgen.WriteOne(dir, ws[i]) })
		for i, w := range ws {
			require.NoError(t, errs[i], w.ID)
			dirs = append(dirs, filepath.Join(dir, w.ID))
		}
		culprit.dirs = dirs
	}
	return culprit.dirs
}

// TestCulpritCorporaSafe: on the hand-written culprit incidents and the
// culprit worlds, no investigator makes a bad rollback, counting the
// decision about the culprit (a culprit decision allowing a rollback where
// expect.culprit says deny or names another service: replay.Result.
// CulpritBadRollback, counted by BadRollback). It held before any origin
// code (every culprit denied by absence) and must hold after.
func TestCulpritCorporaSafe(t *testing.T) {
	if testing.Short() {
		t.Skip("replays the culprit corpora with six investigators; skipped with -short")
	}
	outs := culpritOutcomes(t, culpritInvestigators())
	for _, o := range outs {
		if o.CulpritBadRollback() {
			t.Errorf("%s %s: culprit decision %+v where expect.culprit is %+v", o.Investigator, o.Incident, o.Culprit, o.Expect.Culprit)
		}
	}
	holdSafe(t, "culprit", outs)
}

// TestCulpritTargets is issue 33's "done when" on the culprit corpora:
// persona:oracle meets every expect.culprit, the rules at least 90% of them.
// Written before the pipeline decides about the culprit (the sandbox's
// Facts.Origin, branch h33origin; the gate's derived decision and the
// replay's culprit, branch h33gate): until both are merged it fails, with
// every expected allow missed (the denies are met by absence).
func TestCulpritTargets(t *testing.T) {
	if testing.Short() {
		t.Skip("replays the culprit corpora; skipped with -short")
	}
	outs := culpritOutcomes(t, []string{"persona:oracle", "rules"})
	s := replay.Score(outs)
	for _, r := range s.Rows {
		t.Logf("culprit %-16s culprit met %d/%d, culprit bad %d, culprit missed %d; verdicts %d/%d, diagnoses %d/%d",
			r.Investigator, r.CulpritMet, r.CulpritExpected, r.CulpritBadRollbacks, r.CulpritMissedRollbacks,
			r.VerdictCorrect, r.Incidents, r.DiagnosisCorrect, r.Incidents)
	}
	for _, o := range outs {
		if o.Error == "" && o.Expect.Culprit != nil && !o.CulpritMet() {
			t.Logf("culprit not met: %s %s: expected %+v, decided %+v (diagnosis %s, verdict %s)", o.Investigator, o.Incident, *o.Expect.Culprit, o.Culprit, o.Diagnosis, o.Verdict)
		}
	}
	i := slices.IndexFunc(s.Rows, func(r replay.Row) bool { return r.Investigator == "persona:oracle" })
	require.GreaterOrEqual(t, i, 0)
	oracle := s.Rows[i]
	require.Equal(t, oracle.Incidents, oracle.CulpritExpected, "every culprit incident carries expect.culprit")
	require.Zero(t, oracle.Errors)
	require.Equal(t, oracle.CulpritExpected, oracle.CulpritMet, "persona:oracle meets every expect.culprit")
	i = slices.IndexFunc(s.Rows, func(r replay.Row) bool { return r.Investigator == "rules" })
	require.GreaterOrEqual(t, i, 0)
	rules := s.Rows[i]
	require.Zero(t, rules.Errors)
	require.GreaterOrEqual(t, float64(rules.CulpritMet), 0.9*float64(rules.CulpritExpected), "rules meet at least 90%% of expect.culprit")
}
