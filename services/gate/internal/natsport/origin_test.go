package natsport_test

import (
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/bus"
)

// originWorld: the alert fires on shop-api, 80% of its new failures begin in
// payment, whose 2.2.0 started at 10:00, before payment's onset at 10:05.
func originWorld(t *testing.T) *world {
	w := newWorld(t)
	w.sandbox = []string{"payment"}
	payAt := tMarker.Add(-2 * time.Minute)
	w.evidence[0].Facts.Release = nil
	w.evidence[0].Facts.FailingDependencies = []string{"payment"}
	w.evidence[0].Facts.Origin = &contracts.FailureOrigin{Service: "payment", Signal: "errors", Share: 0.8, Failures: 80, Total: 100, Onset: &tOnset}
	w.evidence[1].Facts.DeploymentMarkers = nil
	w.evidence = append(w.evidence,
		contracts.EvidenceV1{ID: "ev-3", InvestigationID: "inv-1", Service: "payment", Tool: contracts.ToolDeploymentMarkers, From: tStarts.Add(-2 * time.Hour), To: tNow,
			Facts: contracts.Facts{MarkerQuery: true, DeploymentMarkers: []contracts.DeploymentMarker{{Service: "payment", Version: "2.2.0", At: payAt}}}},
		contracts.EvidenceV1{ID: "ev-4", InvestigationID: "inv-1", Service: "payment", Tool: contracts.ToolServiceOverview, From: tStarts.Add(-2 * time.Hour), To: tNow,
			Facts: contracts.Facts{Release: &contracts.ReleaseErrors{Version: "2.2.0", FirstSeen: payAt, HistoryMinutes: 60,
				Requests: 200, Errors: 90, NewSignature: "charge: schema", NewErrors: 85,
				OtherVersions: &contracts.OtherVersionErrors{HistoryRequests: 2400, HistoryErrors: 2}}}},
	)
	w.evAs = append(w.evAs, envelope.RoleSandbox, envelope.RoleSandbox)
	claim := contracts.Claim{ID: "c2", Class: "bad_release", Service: "payment", Statement: "payment 2.2.0 fails charges", Confidence: 0.85, EvidenceIDs: []string{"ev-1", "ev-3"}}
	w.review.Kept = []contracts.Claim{claim}
	w.review.Best = &claim
	w.others = []contracts.ReleaseLedgerV1{{Project: "shop", Service: "payment", Releases: []contracts.Release{
		{Version: "2.1.9", Image: "payment:2.1.9", DeployedAt: payAt.Add(-72 * time.Hour)}, {Version: "2.2.0", Image: "payment:2.2.0", DeployedAt: payAt}}}}
	return w
}

// TestHandlePublishesTheDerivedDecision: one review, two signed decisions,
// each under its own message id (each spent once); the derived one reads
// payment's own ledger, cooldown and freezes and carries the alerted
// service's alert.
func TestHandlePublishesTheDerivedDecision(t *testing.T) {
	t.Parallel()
	w := originWorld(t)
	outs, err := w.run(t)
	require.NoError(t, err)
	require.Len(t, outs, 2)
	var alerted, derived contracts.DecisionV1
	_, err = w.k.ring.Open(outs[0].Envelope.Marshal(), contracts.SubjectDecision, tNow, &alerted)
	require.NoError(t, err)
	_, err = w.k.ring.Open(outs[1].Envelope.Marshal(), contracts.SubjectDecision, tNow, &derived)
	require.NoError(t, err)
	require.Equal(t, alerted.DecisionID, outs[0].MsgID)
	require.Equal(t, derived.DecisionID, outs[1].MsgID)
	require.NotEqual(t, outs[0].MsgID, outs[1].MsgID)

	require.Equal(t, svc, alerted.Service)
	require.Equal(t, contracts.VerdictDeny, alerted.Verdict)
	require.Equal(t, "payment", derived.Service)
	require.Equal(t, contracts.VerdictAllow, derived.Verdict, "%+v", derived.Checks)
	require.Equal(t, "payment:2.1.9", derived.RollbackTarget)
	require.Equal(t, svc, derived.Origin.AlertedService)
	require.Equal(t, alerted.DecisionID, derived.Origin.AlertedDecisionID)
	require.Equal(t, alerted.Alert, derived.Alert, "the derived decision carries the alerted service's signed alert")
	for _, k := range []string{"payment", contracts.FreezeKey("payment")} {
		require.Contains(t, w.asked, k, "payment's own state is read")
	}

	again, err := w.run(t)
	require.NoError(t, err)
	require.Equal(t, []string{outs[0].MsgID, outs[1].MsgID}, []string{again[0].MsgID, again[1].MsgID}, "a redelivered review dedups both")
}

// With no release ledger of payment there is no corroborated marker and no
// target: the derived decision denies on deployment_related.
func TestHandleDerivedDecisionVerifiesTheOriginsLedger(t *testing.T) {
	t.Parallel()
	w := originWorld(t)
	w.others = nil
	outs, err := w.run(t)
	require.NoError(t, err)
	require.Len(t, outs, 2)
	var derived contracts.DecisionV1
	_, err = w.k.ring.Open(outs[1].Envelope.Marshal(), contracts.SubjectDecision, tNow, &derived)
	require.NoError(t, err)
	require.Equal(t, contracts.VerdictDeny, derived.Verdict)
	require.Equal(t, []string{contracts.CheckDeploymentRelated}, derived.FailedChecks)
}

// TestUnreadableOriginStateIsReadAgain: the state of the service where the
// failures begin is read like the alerted service's: payment's action
// ledger, release ledger and freeze (all under the key "payment") giving no
// answer, while shop-api's answer, redeliver the review until its last
// delivery, where the derived decision denies on every check they feed.
func TestUnreadableOriginStateIsReadAgain(t *testing.T) {
	t.Parallel()
	require.Equal(t, "payment", contracts.FreezeKey("payment"))
	w := originWorld(t)
	w.keyErr = map[string]error{"payment": nats.ErrTimeout}
	w.deliveries, w.delivery = 5, 1
	outs, err := w.run(t)
	require.Error(t, err, "an early delivery decides nothing on a store that did not answer")
	require.False(t, bus.IsPermanent(err), "redelivered, not dead-lettered: %v", err)
	require.Empty(t, outs)

	w.delivery = 5
	outs, err = w.run(t)
	require.NoError(t, err, "the last delivery decides")
	require.Len(t, outs, 2)
	var derived contracts.DecisionV1
	_, err = w.k.ring.Open(outs[1].Envelope.Marshal(), contracts.SubjectDecision, tNow, &derived)
	require.NoError(t, err)
	require.Equal(t, "payment", derived.Service)
	require.Equal(t, contracts.VerdictDeny, derived.Verdict)
	require.Equal(t, []string{contracts.CheckCooldown, contracts.CheckDeploymentRelated, contracts.CheckFreeze}, derived.FailedChecks, "%+v", derived.Checks)
}
