package e2e

import (
	"testing"

	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// heldout11Twins holds four harsher twins of e2e/incidents-heldout11's
// provisioned-concurrency trap (its README, "Twins"): the cut 330 s into a
// Canary10Percent5Minutes deployment, 50 s after an AllAtOnce one, 200 s
// into a Linear10PercentEvery1Minute shift (both versions serving), and a
// smaller cold-start share (16%).
const heldout11Twins = "incidents-heldout11-twins"

// heldout11Traps are heldout11's trap rolled back on main (its README,
// "The bad rollback") and its twins that main rolled back too: a Terraform
// apply cutting the provisioned concurrency of locker-api's alias minutes
// after a release, cold starts (faas.coldstart) rising with no error;
// persona:quality's config_regression leaned on the faas.coldstart shift
// as what the release changed (mutant sandbox.quality_platform).
var heldout11Traps = []string{
	"incidents-heldout11/lb11-trap-provisioned-concurrency-locker-api",
	heldout11Twins + "/lb11-twin-pc-canary-locker-api",
	heldout11Twins + "/lb11-twin-pc-linear-locker-api",
}

// TestHeldout11TrapsAreDenied replays every investigator on the
// provisioned-concurrency trap and the two twins main rolled back: none may
// roll back.
func TestHeldout11TrapsAreDenied(t *testing.T) {
	if testing.Short() {
		t.Skip("replays six investigators on three heldout11 traps; skipped with -short")
	}
	outs := evalDirs(t, heldout11Traps, twinInvestigators)
	require.Len(t, outs, len(twinInvestigators)*len(heldout11Traps))
	for _, o := range outs {
		require.Empty(t, o.Error, "%s %s", o.Investigator, o.Incident)
		require.Equal(t, "deny", o.Verdict, "%s %s: %s rolled back (failed %v)", o.Investigator, o.Incident, o.Diagnosis, o.FailedChecks)
	}
}

// TestHeldout11TwinsAreDenied replays every investigator on the heldout11
// twins: none may roll back (their diagnoses are not asserted).
func TestHeldout11TwinsAreDenied(t *testing.T) {
	if testing.Short() {
		t.Skip("replays six investigators on the heldout11 twins; skipped with -short")
	}
	requireNoneRollsBack(t, heldout11Twins, 4)
}

// TestHostilePersonasOnHeldout11Traps replays the hostile personas on the
// provisioned-concurrency trap and its two rolled-back twins and asserts no
// bad rollback.
func TestHostilePersonasOnHeldout11Traps(t *testing.T) {
	if testing.Short() {
		t.Skip("replays the hostile personas on three heldout11 traps; skipped with -short")
	}
	holdTheLine(t, "heldout11-traps-hostile", evalDirs(t, heldout11Traps, hostilePersonas()))
}

// TestHeldout11FaaSVersionReleases: heldout11's Python and Java functions
// name their version only in faas.version; read from it (where the ledger
// runs that version), the Java retry storm and the Python configuration
// release are persona:oracle's rollbacks, and the redrive of a dead-letter
// queue two minutes after a Python release (its batches' messages 5.3x) is
// no investigator's rollback.
func TestHeldout11FaaSVersionReleases(t *testing.T) {
	if testing.Short() {
		t.Skip("replays heldout11's faas.version incidents; skipped with -short")
	}
	outs := evalDirs(t, []string{"incidents-heldout11/lb11-carrier-timeout-retries-label-svc", "incidents-heldout11/lb11-env-holds-table-booking-fn"},
		[]string{"persona:oracle"})
	require.Len(t, outs, 2)
	for _, o := range outs {
		require.Empty(t, o.Error, o.Incident)
		require.Equal(t, "allow", o.Verdict, "%s: failed %v", o.Incident, o.FailedChecks)
	}
	for _, o := range evalDirs(t, []string{"incidents-heldout11/lb11-trap-dlq-redrive-dispatch-worker"}, twinInvestigators) {
		require.Empty(t, o.Error, "%s %s", o.Investigator, o.Incident)
		require.Equal(t, "deny", o.Verdict, "%s: %s rolled back", o.Investigator, o.Diagnosis)
	}
}

// TestHeldout11CorpusLoads: the heldout11 corpus (a parcel-locker network
// serverless on AWS Lambda, written by its gen.py: ADOT faas.* spans,
// Python and Java functions with only faas.version, CodeDeploy traffic
// shifting behind an alias, SQS batches, EventBridge, Step Functions,
// DynamoDB and Bedrock, X-Ray style sampling, +05:45 nanosecond
// timestamps) loads with the format's own loader, holds twelve incidents,
// six rollbacks and six traps, and declares itself in sample (scored once
// before any tuning; its provisioned-concurrency trap was read for branch
// h50ho11's fix).
func TestHeldout11CorpusLoads(t *testing.T) {
	t.Parallel()
	incs := loadTaggedCorpus(t, "incidents-heldout11", "heldout11", "in-sample", 12)
	require.Equal(t, 6, countExpect(incs, func(e incident.Expect) bool { return e.Verdict == "allow" }))
	require.Equal(t, 6, countExpect(incs, func(e incident.Expect) bool { return e.Verdict == "deny" }))
}

// TestHeldout11TwinsCorpusLoads: the twins load, all traps, in sample.
func TestHeldout11TwinsCorpusLoads(t *testing.T) {
	t.Parallel()
	incs := loadTaggedCorpus(t, heldout11Twins, "heldout11", "in-sample", 4)
	require.Equal(t, len(incs), countExpect(incs, func(e incident.Expect) bool { return e.Verdict == "deny" }))
}
