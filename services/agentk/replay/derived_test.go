package replay

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"agentk/contracts"
	"agentk/contracts/envelope"
)

// derivedOutcome is what the observer saw of a culprit incident: the alert
// on shop-api denied, the derived decision about payment allowed and acted
// on (dry run).
func derivedOutcome() *outcome {
	alerted := contracts.DecisionV1{DecisionID: "decision.review.inv-1", Service: "shop-api", Verdict: contracts.VerdictDeny,
		FailedChecks: []string{contracts.CheckConfidence, contracts.CheckDeploymentRelated}, RollbackTarget: "shop-api:v1"}
	derived := contracts.DecisionV1{DecisionID: contracts.DerivedDecisionID(alerted.DecisionID, "payment"), Service: "payment",
		Verdict: contracts.VerdictAllow, FailedChecks: []string{}, RollbackTarget: "payment:2.1.9",
		Origin: &contracts.DecisionOrigin{AlertedService: "shop-api", AlertedDecisionID: alerted.DecisionID, Share: 0.71}}
	act := contracts.ActionV1{DecisionID: derived.DecisionID, Service: "payment", Outcome: contracts.OutcomeDryRun, ToImage: "payment:2.1.9"}
	return &outcome{decision: &alerted, derived: &derived, action: &act, actions: []contracts.ActionV1{act},
		decisions: map[string]contracts.DecisionV1{alerted.DecisionID: alerted, derived.DecisionID: derived}}
}

// TestFillReportsTheCulpritDecision: replay --json carries the derived
// decision under culprit (INCIDENT-FORMAT.md); verdict and failed_checks stay
// the alerted service's, and the action on the derived decision is inside
// the gate.
func TestFillReportsTheCulpritDecision(t *testing.T) {
	t.Parallel()
	var r Result
	derivedOutcome().fill(&r)
	require.Equal(t, contracts.VerdictDeny, r.Verdict)
	require.Equal(t, []string{contracts.CheckConfidence, contracts.CheckDeploymentRelated}, r.FailedChecks)
	require.Equal(t, "decision.review.inv-1", r.DecisionID)
	require.Equal(t, &Culprit{Service: "payment", Verdict: contracts.VerdictAllow, FailedChecks: []string{}}, r.Culprit)
	require.Equal(t, contracts.OutcomeDryRun, r.Action)
	require.Equal(t, "shop-api:v1", r.RollbackTarget, "the rollback target stays the alerted decision's")
	require.Zero(t, r.OutOfGateActions, "an action on an allowed derived decision is inside the gate")

	b, err := json.Marshal(r)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	require.Equal(t, map[string]any{"service": "payment", "verdict": "allow"}, m["culprit"])

	// No derived decision: no culprit key at all.
	out := derivedOutcome()
	out.derived, out.action, out.actions = nil, nil, nil
	r = Result{}
	out.fill(&r)
	require.Nil(t, r.Culprit)
	b, err = json.Marshal(r)
	require.NoError(t, err)
	require.NotContains(t, string(b), `"culprit"`)
}

// An action paid for by a denied derived decision is out of the gate.
func TestFillCountsAnActionOnADeniedDerivedDecisionOutOfGate(t *testing.T) {
	t.Parallel()
	out := derivedOutcome()
	d := out.decisions[out.derived.DecisionID]
	d.Verdict = contracts.VerdictDeny
	out.decisions[d.DecisionID] = d
	var r Result
	out.fill(&r)
	require.Equal(t, 1, r.OutOfGateActions)
}

// TestDecidedWaitsForTheAnnouncedDerivedDecision: a denial of the alerted
// service ends the replay only once the derived decision the evidence
// announced is in.
func TestDecidedWaitsForTheAnnouncedDerivedDecision(t *testing.T) {
	t.Parallel()
	ev := contracts.EvidenceV1{ID: "ev-1", InvestigationID: "inv-1", Service: "shop-api",
		Facts: contracts.Facts{Origin: &contracts.FailureOrigin{Service: "payment", Signal: "errors", Share: 0.7, Failures: 7, Total: 10}}}
	sealed, err := contracts.GoldenSigner(envelope.RoleSandbox).SealJSON(contracts.SubjectEvidence, ev, time.Date(2026, 11, 30, 10, 20, 0, 0, time.UTC), 0)
	require.NoError(t, err)
	review := &contracts.ReviewV1{InvestigationID: "inv-1", EvidenceRefs: []contracts.EvidenceRef{contracts.RefTo(ev.ID, sealed)}}

	out := derivedOutcome()
	out.review, out.derived = review, nil
	out.evidence = map[string]contracts.EvidenceV1{sealed.Digest(): ev}
	f := &follower{out: out}
	require.True(t, expectsDerived(out))
	require.False(t, f.decided(), "the derived decision is announced and not in yet")
	require.NotNil(t, f.derivedWait, "a gate that never makes it cannot hang the replay")
	out.derived = derivedOutcome().derived
	require.True(t, f.decided())

	// Evidence that names the alerted service itself, or no origin, announces nothing.
	for _, o := range []*contracts.FailureOrigin{nil, {Service: "shop-api"}} {
		ev.Facts.Origin = o
		out.evidence = map[string]contracts.EvidenceV1{sealed.Digest(): ev}
		out.derived = nil
		require.False(t, expectsDerived(out))
		require.True(t, (&follower{out: out}).decided())
	}
	// An allowed decision being answered is never the end at the gate.
	require.False(t, (&follower{out: out, clicked: true}).decided())
}

// TestFillCarriesEachFailedCheckReasonWhole: replay --json says why each
// failed check failed, unclipped; passed checks are left out.
func TestFillCarriesEachFailedCheckReasonWhole(t *testing.T) {
	t.Parallel()
	long := "no deployment.marker span of shop-api lies in the 30m0s before the onset 2026-11-30T10:06:00Z; " + strings.Repeat("x", 200)
	o := derivedOutcome()
	o.decision.Checks = []contracts.CheckResult{
		{Name: contracts.CheckSLOBreach, Passed: true, Reason: "burn rate 4.8 ≥ 1"},
		{Name: contracts.CheckConfidence, Reason: "best reviewed claim has confidence 0.5 < 0.7"},
		{Name: contracts.CheckDeploymentRelated, Reason: long},
	}
	var r Result
	o.fill(&r)
	require.Equal(t, map[string]string{
		contracts.CheckConfidence:        "best reviewed claim has confidence 0.5 < 0.7",
		contracts.CheckDeploymentRelated: long,
	}, r.FailedReasons)
	b, err := json.Marshal(r)
	require.NoError(t, err)
	require.Contains(t, string(b), `"failed_reasons":{`)
	var none Result
	(&outcome{}).fill(&none)
	require.Nil(t, none.FailedReasons)
}
