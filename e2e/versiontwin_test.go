package e2e

import (
	"slices"
	"testing"

	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// versionTwins holds twins of e2e/incidents-heldout4's
// ho4-typeerror-link-platform-account-portal where the TypeError is an
// outside cause's (platform-auth answering null handles) that every version
// of account-portal throws, from 5 s after 8.4.0's marker or 15 s before it,
// and head-sampled from 5 s or 30 s after it with the TypeError's text as
// the span's status message (its README). A rolling update keeps 8.3.2
// serving beside 8.4.0 for 90 s, and 8.3.2 fails the same way: a rollback
// to it undoes nothing.
const versionTwins = "incidents-version-twins"

// TestHeldout4VersionTwinsAreDenied replays every investigator on the
// version twins: none may roll back (their diagnoses are not asserted). With the gate's other-versions check
// off (mutant gate.other_versions_fail) persona:liar's and persona:wrong's
// retry_storm of the twin 5 s after the marker is rolled back: the marker
// precedes the onset, the tail sampler keeps every failing link-platform
// trace (each with its platform-auth call) so the calls per sampled request
// rise, and nothing else reads the old version failing. With an
// operation's departure standing for a change on a code release (mutant
// gate.change_op_settings) persona:quality's config_regression of both
// message-bearing head twins is rolled back.
func TestHeldout4VersionTwinsAreDenied(t *testing.T) {
	if testing.Short() {
		t.Skip("replays six investigators on the version twins; skipped with -short")
	}
	requireNoneRollsBack(t, versionTwins, 5)
}

// TestVersionTwinsCorpusLoads: the twins load with the format's own loader,
// all traps, and the provenance declares them in sample (written with the
// check they ask for).
func TestVersionTwinsCorpusLoads(t *testing.T) {
	t.Parallel()
	incs := loadTaggedCorpus(t, versionTwins, "version-twin", "in-sample", 5)
	require.Equal(t, len(incs), countExpect(incs, func(e incident.Expect) bool { return e.Verdict == "deny" }))
}

// twinInvestigators are the investigators every twin corpus is replayed
// with: the rules and the personas whose claims could buy a rollback.
var twinInvestigators = []string{"rules", "persona:oracle", "persona:liar", "persona:wrong", "persona:marker", "persona:quality"}

// requireNoneRollsBack replays twinInvestigators on the n incidents of dir
// and requires each replay to end in a deny (diagnoses are not asserted).
func requireNoneRollsBack(t *testing.T, dir string, n int) {
	t.Helper()
	outs := evalFolder(t, dir, twinInvestigators)
	require.Len(t, outs, len(twinInvestigators)*n)
	for _, o := range outs {
		require.Empty(t, o.Error, "%s %s", o.Investigator, o.Incident)
		require.Equal(t, "deny", o.Verdict, "%s %s: %s rolled back (failed %v)", o.Investigator, o.Incident, o.Diagnosis, o.FailedChecks)
	}
}

// requireHeldoutVerdicts replays twinInvestigators on the n incidents of a
// held-out corpus (dir): no replay may end in an error or a bad rollback
// (a trap allowed, or a culprit decision the incident does not expect),
// and the right rollbacks each investigator met when the corpus landed
// (allowed: incident -> investigators) stay met.
func requireHeldoutVerdicts(t *testing.T, dir string, n int, allowed map[string][]string) {
	t.Helper()
	outs := evalFolder(t, dir, twinInvestigators)
	require.Len(t, outs, len(twinInvestigators)*n)
	for _, o := range outs {
		require.Empty(t, o.Error, "%s %s", o.Investigator, o.Incident)
		require.False(t, o.BadRollback(), "%s %s: %s rolled back (failed %v; culprit %+v, expected %+v)", o.Investigator, o.Incident, o.Diagnosis, o.FailedChecks, o.Culprit, o.Expect.Culprit)
		if slices.Contains(allowed[o.Incident], o.Investigator) {
			require.Equal(t, "allow", o.Verdict, "%s %s: %s denied (failed %v)", o.Investigator, o.Incident, o.Diagnosis, o.FailedChecks)
		}
	}
}
