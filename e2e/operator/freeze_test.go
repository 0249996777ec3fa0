package operator

import (
	"context"
	"strings"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/topology"
	"agentk/services/bridge/client"
	"agentk/services/bridge/fakeslack"

	"github.com/stretchr/testify/require"
)

// TestFreezeDeniesRefusesAndExpires is issue 14's freeze, end to end over the
// embedded fabric with the dry-run deployer:
//
//  1. an incident is allowed and the on-call human approves it in Slack
//     while the deployer is down (restarting, say);
//  2. an approver freezes shop-api through the bridge's API for a minute;
//  3. the deployer comes back, takes the approval given before the freeze
//     off the stream, and refuses it on its own: frozen;
//  4. a new incident of the same kind, 40 s before the freeze expires, is
//     denied by the gate with freeze as the only failed check;
//  5. one second after the expiry the same incident is allowed, approved
//     and acted on.
//
// Every service runs on one clock the test moves, so the minute-long freeze
// expires without a minute of waiting.
func TestFreezeDeniesRefusesAndExpires(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p := newPipeline(ctx, t, liveIncident(t, "bad-release-01"), nil)

	// The deployer seeds its ledger (the rollback target the gate needs),
	// then goes down.
	stopDeployer := p.start(ctx, envelope.RoleDeployer)
	poll(ctx, t, 20*time.Second, "the deployer's ledger of "+svc, func() bool { return p.ledgerLen(ctx) >= 2 })
	stopDeployer()
	p.start(ctx, except(envelope.RoleDeployer)...)

	// 1. Allowed and approved before any freeze.
	p.fire(ctx, "freeze-before")
	before := p.decision(ctx)
	require.Equal(t, contracts.VerdictAllow, before.Verdict, describe(before))
	fc, ok := checkOf(before, contracts.CheckFreeze)
	require.True(t, ok, "the gate runs the freeze check on every decision")
	require.True(t, fc.Passed)
	p.click(ctx, before.DecisionID, fakeslack.Approve)
	appr := next(ctx, p, contracts.SubjectApproval, func(a contracts.ApprovalV1) bool { return a.DecisionID == before.DecisionID })
	require.Equal(t, contracts.AnswerApprove, appr.Answer)

	// 2. The freeze, through the bridge's API (what `agentk freeze` calls).
	fz, err := client.Freeze(ctx, "http://"+p.bridge, p.console, svc, "change freeze: payments migration", time.Minute)
	require.NoError(t, err)
	require.True(t, fz.Active)
	require.Equal(t, approverName, fz.By, "signed as the token's approver")
	require.Equal(t, fz.At.Add(time.Minute), fz.ExpiresAt)
	require.WithinDuration(t, p.now(), fz.At, 5*time.Second, "the bridge stamps the freeze with the services' clock")
	_, err = client.Freeze(ctx, "http://"+p.bridge, "not-a-console-token-at-all", svc, "x", time.Minute)
	require.Error(t, err, "only an approver's token freezes")
	freezes, err := p.admin.KeyValue(ctx, topology.BucketFreezes)
	require.NoError(t, err)
	e, err := freezes.Get(ctx, svc)
	require.NoError(t, err, "stored durably in KV")
	var stored contracts.FreezeV1
	_, err = p.kr.Open(e.Value(), contracts.SubjectFreeze, p.now(), &stored)
	require.NoError(t, err, "signed by the bridge")
	require.Equal(t, fz.FreezeID, stored.FreezeID)

	// 3. The deployer comes back and refuses the approval given before the freeze.
	p.start(ctx, envelope.RoleDeployer)
	refused := next(ctx, p, contracts.SubjectAction, func(a contracts.ActionV1) bool { return a.DecisionID == before.DecisionID })
	require.Equal(t, contracts.OutcomeRefused, refused.Outcome, "%+v", refused)
	require.True(t, strings.HasPrefix(refused.Reason, "frozen"), refused.Reason)
	require.Empty(t, refused.Command, "nothing was run")

	// 4. Still frozen 40 s before the expiry: the gate denies, naming the freeze.
	p.setNow(fz.ExpiresAt.Add(-40 * time.Second))
	p.fire(ctx, "freeze-during")
	during := p.decision(ctx)
	require.Equal(t, contracts.VerdictDeny, during.Verdict)
	require.Equal(t, []string{contracts.CheckFreeze}, during.FailedChecks, "the freeze alone: the six others pass\n%s", describe(during))
	fc, _ = checkOf(during, contracts.CheckFreeze)
	require.Contains(t, fc.Reason, fz.Reason)
	require.NotEmpty(t, during.NextStep)
	require.True(t, p.now().Before(fz.ExpiresAt), "the denial came before the expiry")

	// 5. One second after the expiry: allowed, approved, acted on.
	p.setNow(fz.ExpiresAt.Add(time.Second))
	p.fire(ctx, "freeze-after")
	after := p.decision(ctx)
	require.Equal(t, contracts.VerdictAllow, after.Verdict, describe(after))
	p.click(ctx, after.DecisionID, fakeslack.Approve)
	acted := next(ctx, p, contracts.SubjectAction, func(a contracts.ActionV1) bool { return a.DecisionID == after.DecisionID })
	require.Equal(t, contracts.OutcomeDryRun, acted.Outcome, "%+v", acted)
	require.NotEmpty(t, acted.Command)
}

// TestGlobalFreezeHoldsUntilLifted: a freeze of every service (`agentk
// freeze --all`) denies a shop-api incident at the gate, and a signed
// unfreeze lets the next one through before the expiry.
func TestGlobalFreezeHoldsUntilLifted(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p := newPipeline(ctx, t, liveIncident(t, "retry-storm-01"), nil)
	p.start(ctx)
	poll(ctx, t, 20*time.Second, "the deployer's ledger of "+svc, func() bool { return p.ledgerLen(ctx) >= 2 })

	fz, err := client.Freeze(ctx, "http://"+p.bridge, p.console, contracts.FreezeGlobal, "datacenter maintenance", 2*time.Hour)
	require.NoError(t, err)
	require.Equal(t, contracts.FreezeGlobal, fz.Scope)
	p.fire(ctx, "global-frozen")
	frozen := p.decision(ctx)
	require.Equal(t, contracts.VerdictDeny, frozen.Verdict)
	require.Equal(t, []string{contracts.CheckFreeze}, frozen.FailedChecks, describe(frozen))

	lift, err := client.Unfreeze(ctx, "http://"+p.bridge, p.console, contracts.FreezeGlobal, "maintenance over")
	require.NoError(t, err)
	require.False(t, lift.Active)
	require.Equal(t, fz.FreezeID, lift.Lifts)
	_, err = client.Unfreeze(ctx, "http://"+p.bridge, p.console, contracts.FreezeGlobal, "again")
	require.Error(t, err, "nothing frozen there any more")

	p.fire(ctx, "global-lifted")
	lifted := p.decision(ctx)
	require.Equal(t, contracts.VerdictAllow, lifted.Verdict, describe(lifted))
	require.True(t, p.now().Before(fz.ExpiresAt), "lifted, not expired")
	p.click(ctx, lifted.DecisionID, fakeslack.Approve)
	acted := next(ctx, p, contracts.SubjectAction, func(a contracts.ActionV1) bool { return a.DecisionID == lifted.DecisionID })
	require.Equal(t, contracts.OutcomeDryRun, acted.Outcome, "%+v", acted)
}
