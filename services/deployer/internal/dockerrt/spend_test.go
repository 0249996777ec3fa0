package dockerrt_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/services/deployer/internal/policy"
	"agentk/services/deployer/internal/testkit"

	"github.com/stretchr/testify/require"
)

// container is what Docker shows of the one shop-api container: its id,
// image and start time. Any compose recreate changes the id and start.
func (r *rig) container(t *testing.T) string {
	t.Helper()
	cs := r.s.containers(t)
	require.Len(t, cs, 1)
	return cs[0].ID + " " + cs[0].Image + " " + cs[0].State.StartedAt
}

// Issue 17 on the real engine: a second approval of one decision (another
// approval id, signed by the bridge, applied 11 minutes later, after the
// cooldown and before the decision expires) rolls nothing back.
func TestTwoApprovalsOfOneDecisionRollBackOnceOnRealDocker(t *testing.T) {
	t.Parallel()
	r := prepare(t, composeRuntime, 90*time.Second)
	start := time.Now()
	dec := testkit.DecisionFor("dec-"+r.s.project, "shop-api", images.repo+":v2", images.repo+":v1", start)
	denv := testkit.SealDecision(t, r.keys.Gate, dec, start)
	first, err := r.d.Handle(context.Background(), testkit.SealApproval(t, r.keys.Bridge, testkit.Approval(t, denv, start), start), 1)
	require.NoError(t, err)
	require.Equal(t, contracts.OutcomeRolledBack, first.Action.Outcome, first.Action.Reason)
	require.True(t, first.Action.ContainerVerified)
	after := r.container(t)
	t.Logf("first approval: rolled back in %s (total_ms=%d)", time.Since(start).Round(time.Millisecond), first.Action.TotalMs)

	later := start.Add(11 * time.Minute)
	r.d.Now = func() time.Time { return later.Add(time.Since(start)) }
	a := testkit.Approval(t, denv, later)
	a.ApprovalID = "appr-second-" + r.s.project
	t1 := time.Now()
	second, err := r.d.Handle(context.Background(), testkit.SealApproval(t, r.keys.Bridge, a, later), 1)
	require.NoError(t, err)
	require.NotNil(t, second.Refusal, "%+v", second.Action)
	require.Equal(t, policy.ReasonDecisionSpent, second.Refusal.Reason, second.Refusal.Detail)
	require.Equal(t, after, r.container(t), "the second approval changed the container")
	cs := r.s.containers(t)
	require.Equal(t, images.v1ID, cs[0].Image)
	t.Logf("second approval (11 min later, new approval id): refused %s in %s", second.Refusal.Reason, time.Since(t1).Round(time.Millisecond))
}

// An approval of an incident whose alert resolved rolls nothing back; the
// same decision approved again by a human who was shown the resolve
// (ResolvedConfirmedAt) does.
func TestApprovalAfterResolveOnRealDocker(t *testing.T) {
	t.Parallel()
	r := prepare(t, composeRuntime, 90*time.Second)
	now := time.Now()
	dec := testkit.DecisionFor("dec-"+r.s.project, "shop-api", images.repo+":v2", images.repo+":v1", now)
	denv := testkit.SealDecision(t, r.keys.Gate, dec, now)
	resolved := now.Add(time.Second)
	rec, err := json.Marshal(map[string]any{"incident_id": dec.IncidentID, "service": "shop-api", "state": "resolved", "resolved_at": resolved})
	require.NoError(t, err)
	_, err = r.b.Incidents.Put(context.Background(), dec.IncidentID, rec, 0)
	require.NoError(t, err)
	before := r.container(t)

	t0 := time.Now()
	res, err := r.d.Handle(context.Background(), testkit.SealApproval(t, r.keys.Bridge, testkit.Approval(t, denv, now), now), 1)
	require.NoError(t, err)
	require.NotNil(t, res.Refusal, "%+v", res.Action)
	require.Equal(t, policy.ReasonAlertResolved, res.Refusal.Reason, res.Refusal.Detail)
	require.Equal(t, before, r.container(t), "an approval after the resolve changed the container")
	t.Logf("approval after resolve: refused %s in %s", res.Refusal.Reason, time.Since(t0).Round(time.Millisecond))

	a := testkit.Approval(t, denv, now)
	a.ApprovalID = "appr-reconfirmed-" + r.s.project
	a.ResolvedConfirmedAt = resolved
	t1 := time.Now()
	res, err = r.d.Handle(context.Background(), testkit.SealApproval(t, r.keys.Bridge, a, now), 1)
	require.NoError(t, err)
	require.Equal(t, contracts.OutcomeRolledBack, res.Action.Outcome, res.Action.Reason)
	require.True(t, res.Action.ContainerVerified)
	require.Equal(t, images.v1ID, r.s.containers(t)[0].Image)
	t.Logf("re-confirmed after resolve: rolled back in %s (total_ms=%d)", time.Since(t1).Round(time.Millisecond), res.Action.TotalMs)
}

// The same signed approval message published again later (another stream
// sequence) is a replay: no second action. A redelivery of the first
// message (same sequence) republishes the recorded action.
func TestReplayedApprovalOnRealDocker(t *testing.T) {
	t.Parallel()
	r := prepare(t, composeRuntime, 90*time.Second)
	raw := r.signed(t, "dec-"+r.s.project, time.Now())
	first, err := r.d.HandleMessage(context.Background(), raw, 1, 7)
	require.NoError(t, err)
	require.Equal(t, contracts.OutcomeRolledBack, first.Action.Outcome, first.Action.Reason)
	after := r.container(t)

	redelivered, err := r.d.HandleMessage(context.Background(), raw, 2, 7)
	require.NoError(t, err)
	require.Equal(t, first.Envelope.Marshal(), redelivered.Envelope.Marshal(), "a redelivery republishes the recorded action")

	t1 := time.Now()
	replayed, err := r.d.HandleMessage(context.Background(), raw, 1, 9)
	require.NoError(t, err)
	require.NotNil(t, replayed.Refusal, "%+v", replayed.Action)
	require.Equal(t, policy.ReasonReplay, replayed.Refusal.Reason, replayed.Refusal.Detail)
	require.NotEqual(t, first.MsgID, replayed.MsgID, "the replay's refusal never overwrites the original's action id")
	require.Equal(t, after, r.container(t), "the replay changed the container")
	t.Logf("replayed approval: refused %s in %s", replayed.Refusal.Reason, time.Since(t1).Round(time.Millisecond))
}
