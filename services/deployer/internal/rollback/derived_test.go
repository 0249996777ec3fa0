package rollback_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"agentk/contracts"
	"agentk/services/deployer/internal/policy"
	"agentk/services/deployer/internal/rollback"
	"agentk/services/deployer/internal/testkit"
)

// signedAlert is the ingester's alert of incident on service.
func signedAlert(t *testing.T, e *env, incident, service string) json.RawMessage {
	t.Helper()
	env, err := e.keys.Ingester.SealJSON(contracts.SubjectAlert, contracts.AlertV1{IncidentID: incident, Service: service,
		Status: contracts.AlertFiring, StartsAt: t0.Add(-10 * time.Minute)}, t0.Add(-9*time.Minute), 0)
	require.NoError(t, err)
	return env.Marshal()
}

// derivedDecision is the gate's derived decision (issue 33): the alert fired
// on shop-api, the release to roll back is payment's.
func derivedDecision(t *testing.T, e *env) contracts.DecisionV1 {
	t.Helper()
	d := testkit.Decision(contracts.DerivedDecisionID("dec-1", "payment"), "payment", t0)
	d.IncidentID = "inc-1"
	d.Alert = signedAlert(t, e, "inc-1", "shop-api")
	d.Origin = &contracts.DecisionOrigin{AlertedService: "shop-api", AlertedDecisionID: "dec-1", Signal: "errors", Share: 0.71, Failures: 71, Total: 100,
		Reason: "shop-api burns its budget; 71% of its new failures begin in payment"}
	return d
}

func derivedDeployer(e *env, rec rollback.RecoveryChecker) *rollback.Deployer {
	d := e.deployer()
	d.Rules.Allowlist = []string{"shop-api", "payment"}
	d.Recovery = rec
	return d
}

// TestDerivedDecisionActsOnTheOrigin: the deployer moves payment, from
// payment's own ledger, takes payment's cooldown, and checks recovery on the
// alerted service's SLO with the alert the decision carries; a second
// approval of the same derived decision gets nothing.
func TestDerivedDecisionActsOnTheOrigin(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.seedLedgerOf(t, "payment")
	rec := &recordingRecovery{}
	dec := derivedDecision(t, e)
	denv := testkit.SealDecision(t, e.keys.Gate, dec, t0)
	res, err := derivedDeployer(e, rec).Handle(context.Background(), testkit.SealApproval(t, e.keys.Bridge, testkit.Approval(t, denv, t0), t0), 1)
	require.NoError(t, err)
	require.Nil(t, res.Refusal)
	require.Equal(t, contracts.OutcomeRolledBack, res.Action.Outcome, res.Action.Reason)
	require.Equal(t, "payment", res.Action.Service)
	require.Equal(t, dec.DecisionID, res.Action.DecisionID)

	require.Len(t, rec.qs, 1)
	require.Equal(t, "shop-api", rec.qs[0].Service, "recovery is the alerted service's SLO")
	require.JSONEq(t, string(dec.Alert), string(rec.qs[0].Alert))
	require.Empty(t, rec.qs[0].AlertProblem)

	_, err = e.buckets.Cooldown.Get(context.Background(), "payment")
	require.NoError(t, err, "the cooldown taken is payment's")
	_, err = e.buckets.Cooldown.Get(context.Background(), "shop-api")
	require.Error(t, err, "nothing was done to shop-api")

	e.now = t0.Add(11 * time.Minute)
	second, err := derivedDeployer(e, rec).Handle(context.Background(), secondApproval(t, e, dec, e.now), 1)
	require.NoError(t, err)
	require.NotNil(t, second.Refusal)
	require.Equal(t, policy.ReasonDecisionSpent, second.Refusal.Reason, "a derived decision is spent once too")
	require.EqualValues(t, 1, e.rt.applies.Load())
}

// TestDerivedDecisionWithATamperedOriginIsRefused: a derived decision whose
// signed alert does not name the alerted service its origin states (or that
// names itself as the alerted service, or carries no alert) is refused
// before anything runs, though every other check would let it through.
func TestDerivedDecisionWithATamperedOriginIsRefused(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		mutate func(t *testing.T, e *env, d *contracts.DecisionV1)
		reason string
	}{
		{"origin names another alerted service", func(_ *testing.T, _ *env, d *contracts.DecisionV1) { d.Origin.AlertedService = "checkout" }, policy.ReasonOriginMismatch},
		{"origin names the decision's own service", func(_ *testing.T, _ *env, d *contracts.DecisionV1) { d.Origin.AlertedService = "payment" }, policy.ReasonOriginMismatch},
		{"origin names no alerted service", func(_ *testing.T, _ *env, d *contracts.DecisionV1) { d.Origin.AlertedService = "" }, policy.ReasonOriginMismatch},
		{"alert of the origin itself", func(t *testing.T, e *env, d *contracts.DecisionV1) { d.Alert = signedAlert(t, e, "inc-1", "payment") }, policy.ReasonOriginMismatch},
		{"alert of another incident", func(t *testing.T, e *env, d *contracts.DecisionV1) { d.Alert = signedAlert(t, e, "inc-2", "shop-api") }, policy.ReasonOriginMismatch},
		{"no alert", func(_ *testing.T, _ *env, d *contracts.DecisionV1) { d.Alert = nil }, policy.ReasonOriginMismatch},
		{"alert not signed by the ingester", func(t *testing.T, e *env, d *contracts.DecisionV1) {
			env, err := e.keys.Gate.SealJSON(contracts.SubjectAlert, contracts.AlertV1{IncidentID: "inc-1", Service: "shop-api"}, t0, 0)
			require.NoError(t, err)
			d.Alert = env.Marshal()
		}, policy.ReasonOriginMismatch},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.seedLedgerOf(t, "payment")
			dec := derivedDecision(t, e)
			tc.mutate(t, e, &dec)
			denv := testkit.SealDecision(t, e.keys.Gate, dec, t0)
			res, err := derivedDeployer(e, &recordingRecovery{}).Handle(context.Background(), testkit.SealApproval(t, e.keys.Bridge, testkit.Approval(t, denv, t0), t0), 1)
			require.NoError(t, err)
			require.NotNil(t, res.Refusal, "%+v", res.Action)
			require.Equal(t, tc.reason, res.Refusal.Reason, res.Refusal.Detail)
			require.Equal(t, contracts.OutcomeRefused, res.Action.Outcome)
			require.Zero(t, e.rt.applies.Load())
		})
	}
}

// The deployer's own allowlist decides about the decision's service: the
// alerted service being allowlisted buys the origin nothing.
func TestDerivedDecisionNeedsTheOriginAllowlisted(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.seedLedgerOf(t, "payment")
	d := derivedDeployer(e, &recordingRecovery{})
	d.Rules.Allowlist = []string{"shop-api"}
	denv := testkit.SealDecision(t, e.keys.Gate, derivedDecision(t, e), t0)
	res, err := d.Handle(context.Background(), testkit.SealApproval(t, e.keys.Bridge, testkit.Approval(t, denv, t0), t0), 1)
	require.NoError(t, err)
	require.NotNil(t, res.Refusal)
	require.Equal(t, policy.ReasonNotAllowlisted, res.Refusal.Reason)
	require.Zero(t, e.rt.applies.Load())
}
