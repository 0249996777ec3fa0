package rollback_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/services/deployer/internal/policy"
	"agentk/services/deployer/internal/rollback"
	"agentk/services/deployer/internal/testkit"

	"github.com/stretchr/testify/require"
)

// secondApproval is another human's approval of the decision in denv: a new
// approval id, signed by the bridge at at.
func secondApproval(t *testing.T, e *env, dec contracts.DecisionV1, at time.Time) []byte {
	t.Helper()
	denv := testkit.SealDecision(t, e.keys.Gate, dec, t0)
	a := testkit.Approval(t, denv, at)
	a.ApprovalID = "appr-second"
	return testkit.SealApproval(t, e.keys.Bridge, a, at)
}

// The issue-17 attack: a second approval of one decision, a new approval id,
// signed by the bridge and applied 11 minutes later (after the 10 min
// cooldown, before the 15 min decision expiry). The first rollback's
// container did not verify, so the ledger did not move and the cooldown has
// run out: only the consumed decision stands in the way.
func TestOneDecisionPaysForOneAction(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.seedLedger(t)
	e.rt.verify = rollback.Verification{Verified: false, ImageID: "sha256:v2", Detail: "still v2"}
	dec := testkit.Decision("dec-1", "shop-api", t0)
	denv := testkit.SealDecision(t, e.keys.Gate, dec, t0)
	first, err := e.deployer().Handle(context.Background(), testkit.SealApproval(t, e.keys.Bridge, testkit.Approval(t, denv, t0), t0), 1)
	require.NoError(t, err)
	require.Equal(t, contracts.OutcomeFailed, first.Action.Outcome, first.Action.Reason)
	require.EqualValues(t, 1, e.rt.applies.Load())

	e.now = t0.Add(11 * time.Minute)
	second, err := e.deployer().Handle(context.Background(), secondApproval(t, e, dec, e.now), 1)
	require.NoError(t, err)
	require.NotNil(t, second.Refusal, "%+v", second.Action)
	require.Equal(t, policy.ReasonDecisionSpent, second.Refusal.Reason, second.Refusal.Detail)
	require.Equal(t, contracts.OutcomeRefused, second.Action.Outcome)
	require.Equal(t, "appr-second", second.Action.ApprovalID)
	require.EqualValues(t, 1, e.rt.applies.Load(), "one decision, one action")
}

// A decline spends the decision too: a later approval of a decision a human
// already answered "deny" to never acts.
func TestADeclinedDecisionCannotBeApprovedLater(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.seedLedger(t)
	dec := testkit.Decision("dec-1", "shop-api", t0)
	denv := testkit.SealDecision(t, e.keys.Gate, dec, t0)
	a := testkit.Approval(t, denv, t0)
	a.Answer = contracts.AnswerDeny
	first, err := e.deployer().Handle(context.Background(), testkit.SealApproval(t, e.keys.Bridge, a, t0), 1)
	require.NoError(t, err)
	require.Equal(t, contracts.OutcomeNone, first.Action.Outcome)

	second, err := e.deployer().Handle(context.Background(), secondApproval(t, e, dec, t0.Add(time.Minute)), 1)
	require.NoError(t, err)
	require.Equal(t, policy.ReasonDecisionSpent, second.Refusal.Reason)
	require.Zero(t, e.rt.applies.Load())
}

// Two deployers (a restart, or two replicas) racing two approvals of one
// decision: the create-only key lets exactly one through.
func TestRacingApprovalsOfOneDecisionActOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.seedLedger(t)
	e.rt.gate = make(chan struct{})
	dec := testkit.Decision("dec-1", "shop-api", t0)
	denv := testkit.SealDecision(t, e.keys.Gate, dec, t0)
	msgs := [][]byte{testkit.SealApproval(t, e.keys.Bridge, testkit.Approval(t, denv, t0), t0), secondApproval(t, e, dec, t0)}
	results := make([]rollback.Result, len(msgs))
	var wg sync.WaitGroup
	for i, m := range msgs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := e.deployer().Handle(context.Background(), m, 1)
			require.NoError(t, err)
			results[i] = r
		}()
	}
	// Exactly one reaches Apply; the other is refused without waiting.
	deadline := time.After(10 * time.Second)
	for e.rt.applies.Load() == 0 {
		select {
		case <-deadline:
			t.Fatal("no approval reached Apply")
		case <-time.After(5 * time.Millisecond):
		}
	}
	close(e.rt.gate)
	wg.Wait()
	require.EqualValues(t, 1, e.rt.applies.Load())
	outcomes := []string{results[0].Action.Outcome, results[1].Action.Outcome}
	require.ElementsMatch(t, []string{contracts.OutcomeRolledBack, contracts.OutcomeRefused}, outcomes)
}

// A redelivery of the approval that consumed the decision, after a crash
// between consuming it and journalling, is the same approval: it is not
// refused as spent.
func TestTheConsumingApprovalItselfIsNotRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.seedLedger(t)
	raw := testkit.Signed(t, e.keys, "dec-1", "shop-api", t0)
	v, _, ref := policy.Open(e.keys.Keyring, raw, t0)
	require.Nil(t, ref)
	_, err := e.buckets.Spent.Put(context.Background(), "dec-1", []byte(`{"decision_id":"dec-1","approval_id":"appr-dec-1","nonce":"`+v.ApprovalEnv.Nonce+`"}`), 0)
	require.NoError(t, err)
	res, err := e.deployer().Handle(context.Background(), raw, 1)
	require.NoError(t, err)
	require.Equal(t, contracts.OutcomeRolledBack, res.Action.Outcome, res.Action.Reason)
}

// An approval refused on a state that later changes (a freeze, lifted) and
// published again is a replay: its nonce is spent even though the decision
// is not.
func TestARefusedApprovalReplayedAfterTheFreezeLiftsStaysRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.seedLedger(t)
	e.putFreeze(t, e.keys.Bridge, freezeOn("shop-api", true, t0.Add(time.Minute)))
	raw := testkit.Signed(t, e.keys, "dec-1", "shop-api", t0)
	first, err := e.deployer().HandleMessage(context.Background(), raw, 1, 1)
	require.NoError(t, err)
	require.Equal(t, policy.ReasonFrozen, first.Refusal.Reason)

	e.now = t0.Add(2 * time.Minute) // the freeze expired
	again, err := e.deployer().HandleMessage(context.Background(), raw, 1, 2)
	require.NoError(t, err)
	require.NotNil(t, again.Refusal, "%+v", again.Action)
	require.Equal(t, policy.ReasonReplay, again.Refusal.Reason, again.Refusal.Detail)
	require.Zero(t, e.rt.applies.Load())
}

// A human who answered after being shown the resolve re-confirms: the bridge
// sets ResolvedConfirmedAt to the resolve time it showed.
func TestReconfirmedAfterResolveActs(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.seedLedger(t)
	resolved := t0.Add(-time.Minute)
	e.resolve(t, "inc-dec-1", resolved)
	denv := testkit.SealDecision(t, e.keys.Gate, testkit.Decision("dec-1", "shop-api", t0.Add(-2*time.Minute)), t0)
	a := testkit.Approval(t, denv, t0)
	a.ResolvedConfirmedAt = resolved
	res, err := e.deployer().Handle(context.Background(), testkit.SealApproval(t, e.keys.Bridge, a, t0), 1)
	require.NoError(t, err)
	require.Equal(t, contracts.OutcomeRolledBack, res.Action.Outcome, res.Action.Reason)
}
