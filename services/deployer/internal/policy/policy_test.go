package policy_test

import (
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/services/deployer/internal/policy"
	"agentk/services/deployer/internal/testkit"

	"github.com/stretchr/testify/require"
)

var now = time.Date(2026, 11, 30, 10, 20, 0, 0, time.UTC)

func input(t *testing.T, mutD func(*contracts.DecisionV1), decisionTTL time.Duration) policy.Input {
	t.Helper()
	k := testkit.NewKeys(t)
	d := testkit.Decision("dec-1", "shop-api", now)
	if mutD != nil {
		mutD(&d)
	}
	denv, err := k.Gate.SealJSON(contracts.SubjectDecision, d, now, decisionTTL)
	require.NoError(t, err)
	raw := testkit.SealApproval(t, k.Bridge, testkit.Approval(t, denv, now), now)
	v, _, ref := policy.Open(k.Keyring, raw, now)
	require.Nil(t, ref)
	return policy.Input{
		Verified: v, Now: now,
		Rules: policy.Rules{Allowlist: []string{"shop-api"}, Project: "shop", Cooldown: 10 * time.Minute},
		Ledger: policy.LedgerState{Present: true, Value: contracts.ReleaseLedgerV1{Project: "shop", Service: "shop-api", Releases: []contracts.Release{
			{Version: "v1", Image: testkit.ToImage}, {Version: "v2", Image: testkit.FromImage},
		}}},
	}
}

func TestEvaluate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		mutD   func(*contracts.DecisionV1)
		ttl    time.Duration
		mutIn  func(*policy.Input)
		reason string
	}{
		{name: "allowed", ttl: 15 * time.Minute},
		{name: "decision without any expiry", ttl: 0, mutD: func(d *contracts.DecisionV1) { d.ExpiresAt = time.Time{} }, reason: policy.ReasonNoExpiry},
		{name: "cooldown store unreadable fails closed", ttl: 15 * time.Minute, mutIn: func(in *policy.Input) {
			in.Cooldown = policy.CooldownState{Present: true, Err: envelope.ErrBadSignature}
		}, reason: policy.ReasonCooldownUnread},
		{name: "cooldown entry about another service", ttl: 15 * time.Minute, mutIn: func(in *policy.Input) {
			in.Cooldown = policy.CooldownState{Present: true, Value: contracts.CooldownV1{Service: "payments", At: now.Add(-time.Hour)}}
		}, reason: policy.ReasonCooldownUnread},
		{name: "ledger of another project", ttl: 15 * time.Minute, mutIn: func(in *policy.Input) { in.Ledger.Value.Project = "other" }, reason: policy.ReasonLedgerUnread},
		{name: "ledger with one release", ttl: 15 * time.Minute, mutIn: func(in *policy.Input) { in.Ledger.Value.Releases = in.Ledger.Value.Releases[:1] }, reason: policy.ReasonNoTarget},
		{name: "a decision naming another target is refused, never followed", ttl: 15 * time.Minute, mutD: func(d *contracts.DecisionV1) { d.RollbackTarget = "evil:latest" }, reason: policy.ReasonTargetMismatch},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			in := input(t, c.mutD, c.ttl)
			if c.mutIn != nil {
				c.mutIn(&in)
			}
			v := policy.Evaluate(in)
			if c.reason == "" {
				require.Nil(t, v.Refusal)
				require.Equal(t, testkit.ToImage, v.Plan.To.Image)
				require.Equal(t, testkit.FromImage, v.Plan.From.Image)
				return
			}
			require.NotNil(t, v.Refusal)
			require.Equal(t, c.reason, v.Refusal.Reason, v.Refusal.Detail)
			require.ErrorIs(t, v.Refusal, policy.ErrRefused)
		})
	}
}
