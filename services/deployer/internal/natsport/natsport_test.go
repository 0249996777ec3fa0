package natsport_test

import (
	"bytes"
	"context"
	"log/slog"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/platform/bus"
	"agentk/services/deployer/internal/natsport"
	"agentk/services/deployer/internal/policy"
	"agentk/services/deployer/internal/rollback"
	"agentk/services/deployer/internal/testkit"

	"github.com/stretchr/testify/require"
)

// A forged approval (its decision signed by a key the keyring does not know)
// is answered with nothing: no message to publish, a permanent error (dead
// letter), and a log line whose ids are all marked claimed.
func TestForgedApprovalPublishesNothing(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 30, 10, 20, 0, 0, time.UTC)
	js := testkit.StartJetStream(t)
	b := testkit.CreateBuckets(t, js.JS)
	k := testkit.NewKeys(t)
	stranger := testkit.NewKeys(t) // keys this deployer's keyring does not know
	var logs bytes.Buffer
	h := natsport.Handler{
		Deployer: &rollback.Deployer{
			Keyring: k.Keyring, Signer: k.Deployer, Now: func() time.Time { return now },
			Rules:  policy.Rules{Allowlist: []string{"shop-api"}, Project: "shop", Cooldown: 10 * time.Minute},
			Nonces: b.Nonces, Cooldown: b.Cooldown, Releases: b.Releases, Freezes: b.Freezes, Spent: b.Spent, Incidents: b.Incidents,
		},
		Logger: slog.New(slog.NewTextHandler(&logs, nil)),
	}
	denv := testkit.SealDecision(t, stranger.Gate, testkit.Decision("dec-forged", "shop-api", now), now)
	raw := testkit.SealApproval(t, k.Bridge, testkit.Approval(t, denv, now), now)

	outs, err := h.Handle(context.Background(), bus.Message{Subject: contracts.SubjectApproval, Data: raw, Delivery: 1, Sequence: 1})
	require.Error(t, err)
	require.True(t, bus.IsPermanent(err), "dead-lettered, not redelivered: %v", err)
	require.ErrorIs(t, err, natsport.ErrUnverified)
	require.Empty(t, outs, "no action under the claimed ids")
	require.Contains(t, logs.String(), "claimed_incident_id=inc-dec-forged")
	require.NotContains(t, logs.String(), " incident_id=", "no id is logged as verified")
}
