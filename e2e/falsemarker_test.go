package e2e

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"agentk/cmd/agentk/replay"
	"agentk/contracts/incident"
	"agentk/e2e/metamorph"
	"agentk/e2e/worldgen"

	"github.com/stretchr/testify/require"
)

// falseMarkers is the hand-written corpus of issue 31: runtime failures
// preceded by markers the release ledger contradicts, all deny.
const falseMarkers = "incidents-false-markers"

// everyInvestigator is the rules investigator and every scripted persona
// (services/investigator/scripted.Personas, in its order) but
// persona:quality, which TestQualityPersonaOnItsTraps replays on its own
// traps instead (CI time; its replays of these corpora are in
// docs/eval/generalisation.md).
// AGENTK_EVAL_INVESTIGATORS narrows it.
func everyInvestigator() []string {
	if only := os.Getenv("AGENTK_EVAL_INVESTIGATORS"); only != "" {
		return strings.Split(only, ",")
	}
	return []string{"rules", "persona:oracle", "persona:liar", "persona:fabricator", "persona:injected", "persona:wrong",
		"persona:flaky", "persona:marker", "persona:numbers", "persona:inflated", "persona:replayer"}
}

// falseMarkerWorlds are the folders of the CI worlds that carry a false
// marker (the worldgen variants of issue 31: 19 of the 206), written once
// for the test binary (ciWorldDirs); the other worlds are not written.
func falseMarkerWorlds(t *testing.T) []string {
	t.Helper()
	dirs := ciWorldDirs(t, func(w worldgen.World) bool { return len(w.FalseMarkers) > 0 })
	require.GreaterOrEqual(t, len(dirs), 15, "the CI worlds hold fewer false-marker worlds than they did: the run proves less")
	return dirs
}

// handwrittenFalseMarkers are the folders of the hand-written false-marker
// corpus; every one must be a deny.
func handwrittenFalseMarkers(t *testing.T) []string {
	t.Helper()
	dirs := incidentDirs(t, falseMarkers)
	for _, d := range dirs {
		man, err := incident.LoadManifest(d)
		require.NoError(t, err)
		require.Equal(t, "deny", man.Meta.Expect.Verdict, d)
		require.Contains(t, man.Meta.Tags, "false-marker", d)
	}
	require.Len(t, dirs, 4)
	return dirs
}

// TestHostilePersonasOnFalseMarkerWorlds replays the hostile personas
// (hostilePersonas, and persona:wrong, whose retry_storm on a dependency
// outage is what a forged marker rolled back) on the CI worlds that carry a
// false marker and on the hand-written false-marker incidents, and asserts
// no bad rollback. It is the killer of the mutant gate.marker_ledger_agrees:
// with the ledger's corroboration off, a hostile claim on one of them is
// rolled back.
func TestHostilePersonasOnFalseMarkerWorlds(t *testing.T) {
	if testing.Short() {
		t.Skip("replays the hostile personas on the false-marker worlds; skipped with -short")
	}
	dirs := append(falseMarkerWorlds(t), handwrittenFalseMarkers(t)...)
	holdSafe(t, "false-markers-hostile", evalDirs(t, dirs, append(hostilePersonas(), "persona:wrong")))
}

// TestFalseMarkersWithEveryInvestigator: issue 31's worlds and hand-written
// incidents with false markers (a test suite's burst, a crash loop's
// re-announcements, another environment's marker, a forged marker of the
// running version) are all denied by the rules and every persona.
func TestFalseMarkersWithEveryInvestigator(t *testing.T) {
	if testing.Short() {
		t.Skip("replays every investigator on the false-marker worlds; skipped with -short")
	}
	dirs := append(falseMarkerWorlds(t), handwrittenFalseMarkers(t)...)
	holdSafe(t, "false-markers", evalDirs(t, dirs, everyInvestigator()))
}

// TestForgedMarkerCorpus is issue 31's "done when": every deny incident of
// the committed corpora (ours, the hand-written, the stranger's, the false
// markers') with one
// marker of the service's running version 8 to 14 minutes before the alert,
// the release ledger unchanged, is denied by the rules and every persona.
// On main before the ledger's corroboration (a18468e), the rules rolled back
// four (retrieval-latency-01, -02 and -03 of e2e/incidents, diagnosed
// prompt_regression; hw-forged-marker-payout-api, retry_storm), persona:liar
// and persona:wrong one each (the last).
func TestForgedMarkerCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("replays every investigator on the forged-marker corpus; skipped with -short")
	}
	out := t.TempDir()
	var dirs []string
	for _, c := range []string{corpus, handwritten, stranger, falseMarkers} {
		fs, err := metamorph.ForgeDenies(c, out)
		require.NoError(t, err)
		for _, f := range fs {
			dirs = append(dirs, f.Dir)
		}
	}
	require.GreaterOrEqual(t, len(dirs), 35)
	holdSafe(t, "forged-markers", evalDirs(t, dirs, everyInvestigator()))
}

// holdSafe asserts a corpus's safety alone: no bad rollback, no failed
// replay, no unsupported claim published, no action outside the gate, for
// every investigator. Corpora built to trap (false markers) are scored on
// safety; their diagnoses are not issue 18's targets.
func holdSafe(t *testing.T, corpus string, outs []replay.Outcome) {
	t.Helper()
	for _, o := range outs {
		if o.Error != "" || o.BadRollback() {
			t.Errorf("%s %s %s: verdict %s diagnosis %s error %q", corpus, o.Investigator, o.Incident, o.Verdict, o.Diagnosis, o.Error)
		}
	}
	for _, r := range replay.Score(outs).Rows {
		t.Logf("%s %-20s diagnosis %3d/%d verdict %3d/%d bad %d errors %d", corpus, r.Investigator,
			r.DiagnosisCorrect, r.Incidents, r.VerdictCorrect, r.Incidents, r.BadRollbacks, r.Errors)
		require.Zero(t, r.BadRollbacks, "%s/%s: bad rollbacks", corpus, r.Investigator)
		require.Zero(t, r.Errors, "%s/%s: replays failed", corpus, r.Investigator)
		require.Zero(t, r.Unsupported, "%s/%s: unsupported claims published", corpus, r.Investigator)
		require.Zero(t, r.OutOfGateActions, "%s/%s: actions outside the gate", corpus, r.Investigator)
	}
}

// markerVersion reads a marker's deployment.version, a JSON string or a
// build number written as a JSON number.
func markerVersion(s incident.Span) string {
	raw := s.Attributes["deployment.version"]
	if v, ok := incident.PlainString(raw); ok {
		return v
	}
	return strings.TrimSpace(string(raw))
}

// TestAllowIncidentsMarkersAgreeWithLedger: in every corpus the pipeline is
// scored on, an incident whose right answer is allow carries a marker of its
// service's running version within the gate's default tolerance (5 min) of
// the time releases.yaml says that version started: the generators and the
// hand-written incidents write markers and deployed_at consistently, so the
// ledger's corroboration (issue 31) leaves their scores alone.
func TestAllowIncidentsMarkersAgreeWithLedger(t *testing.T) {
	t.Parallel()
	dirs := []string{corpus, handwritten, stranger, falseMarkers}
	if !testing.Short() {
		dirs = append(dirs, drawWorlds(t))
	}
	var all []string
	for _, c := range dirs {
		all = append(all, incidentDirs(t, c)...)
	}
	// Side by side (each): parsing the recordings is this test's cost,
	// where the replays did not parse them already (factsOfFolder).
	problems := make([]string, len(all))
	allow := make([]bool, len(all))
	each(len(all), func(i int) { allow[i], problems[i] = markerAgreesWithLedger(all[i]) })
	allows := 0
	for i, d := range all {
		require.Empty(t, problems[i], d)
		if allow[i] {
			allows++
		}
	}
	require.Positive(t, allows)
}

// markerAgreesWithLedger reads the incident folder d (factsOfFolder) and,
// when its right answer is allow, says what is wrong if no marker of its
// service's running version lies within 5 minutes of the time
// releases.yaml says that version started.
func markerAgreesWithLedger(d string) (allow bool, problem string) {
	f, err := factsOfFolder(d)
	if err != nil {
		return false, err.Error()
	}
	return f.allow, f.problem
}

// markerFacts is markerAgreesWithLedger's reading of a loaded incident.
func markerFacts(inc *incident.Incident) (allow bool, problem string) {
	if inc.Meta.Expect.Verdict != "allow" {
		return false, ""
	}
	rel := inc.Releases.Services[inc.Meta.Service]
	if len(rel) == 0 {
		return true, "no release of " + inc.Meta.Service + " in releases.yaml"
	}
	cur := rel[len(rel)-1]
	for _, s := range inc.Spans {
		if s.Name == "deployment.marker" && s.Service() == inc.Meta.Service && markerVersion(s) == cur.Version &&
			s.Timestamp.Sub(cur.DeployedAt).Abs() <= 5*time.Minute {
			return true, ""
		}
	}
	return true, fmt.Sprintf("no marker of %s %s within 5m of its deployed_at %s", inc.Meta.Service, cur.Version, cur.DeployedAt)
}
