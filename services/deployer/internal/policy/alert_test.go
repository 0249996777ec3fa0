package policy_test

import (
	"encoding/json"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/services/deployer/internal/policy"

	"github.com/nats-io/nkeys"
	"github.com/stretchr/testify/require"
)

func TestRecoveryAlert(t *testing.T) {
	t.Parallel()
	signers := map[string]*envelope.Signer{}
	var entries []envelope.KeyEntry
	for _, role := range []string{envelope.RoleIngester, envelope.RoleGate, envelope.RoleDeployer} {
		kp, err := nkeys.CreateUser()
		require.NoError(t, err)
		seed, err := kp.Seed()
		require.NoError(t, err)
		s, err := envelope.NewSigner(seed)
		require.NoError(t, err)
		signers[role] = s
		entries = append(entries, envelope.KeyEntry{KeyID: s.KeyID(), Role: role})
	}
	kr, err := envelope.NewKeyring(entries...)
	require.NoError(t, err)
	now := time.Date(2026, 11, 30, 10, 30, 0, 0, time.UTC)
	alert := func(role, incident, service string) json.RawMessage {
		env, err := signers[role].SealJSON(contracts.SubjectAlert, contracts.AlertV1{IncidentID: incident, Service: service, StartsAt: now.Add(-20 * time.Minute)}, now.Add(-20*time.Minute), 0)
		require.NoError(t, err)
		return env.Marshal()
	}
	forged := func() json.RawMessage {
		env, err := envelope.Parse(alert(envelope.RoleIngester, "inc-1", "shop-api"))
		require.NoError(t, err)
		env.Payload = []byte(`{"incident_id":"inc-1","service":"shop-api","starts_at":"2026-11-29T00:00:00Z"}`)
		return env.Marshal()
	}
	cases := []struct {
		name  string
		alert json.RawMessage
		want  string
	}{
		{name: "ingester-signed, same incident and service", alert: alert(envelope.RoleIngester, "inc-1", "shop-api")},
		{name: "none", want: "carries no alert"},
		{name: "signed by the gate", alert: alert(envelope.RoleGate, "inc-1", "shop-api"), want: "wrong role"},
		{name: "signed by the deployer itself", alert: alert(envelope.RoleDeployer, "inc-1", "shop-api"), want: "wrong role"},
		{name: "forged payload", alert: forged(), want: "bad signature"},
		{name: "another incident", alert: alert(envelope.RoleIngester, "inc-2", "shop-api"), want: "carries the alert of inc-2/shop-api"},
		{name: "another service", alert: alert(envelope.RoleIngester, "inc-1", "shop-db"), want: "carries the alert of inc-1/shop-db"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			d := contracts.DecisionV1{DecisionID: "dec-1", IncidentID: "inc-1", Service: "shop-api", Alert: c.alert}
			got, err := policy.RecoveryAlert(kr, d, now)
			if c.want != "" {
				require.ErrorIs(t, err, policy.ErrAlert)
				require.Contains(t, err.Error(), c.want)
				require.Nil(t, got)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.alert, got)
		})
	}
}
