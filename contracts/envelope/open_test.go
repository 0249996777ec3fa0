package envelope_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"agentk/contracts/envelope"
)

// TestOpenExpectsTheSubjectsProducer: Open takes the expected role from the
// wiring table, so a message signed by any other role's key fails exactly as
// OpenAs with the producer's role would.
func TestOpenExpectsTheSubjectsProducer(t *testing.T) {
	t.Parallel()
	keys := map[string]key{}
	var entries []envelope.KeyEntry
	for _, r := range envelope.Roles {
		keys[r] = newKey(t)
		entries = append(entries, envelope.KeyEntry{KeyID: keys[r].kid, Role: r})
	}
	stranger := newKey(t)
	ring, err := envelope.NewKeyring(entries...)
	require.NoError(t, err)
	tests := []struct {
		name    string
		signer  key
		subject string
		open    string
		want    error
	}{
		{name: "alert by the ingester", signer: keys[envelope.RoleIngester], subject: "agentk.alert.v1"},
		{name: "alert by the gate", signer: keys[envelope.RoleGate], subject: "agentk.alert.v1", want: envelope.ErrWrongRole},
		{name: "decision by the gate", signer: keys[envelope.RoleGate], subject: "agentk.decision.v1"},
		{name: "decision by the investigator", signer: keys[envelope.RoleInvestigator], subject: "agentk.decision.v1", want: envelope.ErrWrongRole},
		{name: "approval by the bridge", signer: keys[envelope.RoleBridge], subject: "agentk.approval.v1"},
		{name: "approval by the deployer", signer: keys[envelope.RoleDeployer], subject: "agentk.approval.v1", want: envelope.ErrWrongRole},
		{name: "tool call by the investigator", signer: keys[envelope.RoleInvestigator], subject: "agentk.tool.v1"},
		{name: "tool call by the deployer", signer: keys[envelope.RoleDeployer], subject: "agentk.tool.v1"},
		{name: "tool call by the gate", signer: keys[envelope.RoleGate], subject: "agentk.tool.v1", want: envelope.ErrWrongRole},
		{name: "tool reply by the sandbox", signer: keys[envelope.RoleSandbox], subject: "agentk.tool.v1.reply"},
		{name: "freeze by the bridge", signer: keys[envelope.RoleBridge], subject: "agentk.freeze.v1"},
		{name: "ledger by the deployer", signer: keys[envelope.RoleDeployer], subject: "agentk.ledger.v1"},
		{name: "ledger by the bridge", signer: keys[envelope.RoleBridge], subject: "agentk.ledger.v1", want: envelope.ErrWrongRole},
		{name: "sealed for another subject", signer: keys[envelope.RoleDeployer], subject: "agentk.ledger.v1", open: "agentk.cooldown.v1", want: envelope.ErrWrongSubject},
		{name: "unknown key", signer: stranger, subject: "agentk.alert.v1", want: envelope.ErrUnknownKey},
		{name: "a subject outside the table has no producer", signer: keys[envelope.RoleIngester], subject: "agentk.nothing.v1", want: envelope.ErrWrongRole},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, err := tc.signer.signer.Seal(tc.subject, []byte(`{"service":"shop-api"}`), t0, 0)
			require.NoError(t, err)
			open := tc.subject
			if tc.open != "" {
				open = tc.open
			}
			var v map[string]any
			_, err = ring.Open(e.Marshal(), open, t0, &v)
			if tc.want == nil {
				require.NoError(t, err)
				require.Equal(t, "shop-api", v["service"])
				return
			}
			require.ErrorIs(t, err, tc.want)
		})
	}
}

func TestOpenRefusesMalformedInput(t *testing.T) {
	t.Parallel()
	ring, err := envelope.NewKeyring()
	require.NoError(t, err)
	_, err = ring.Open([]byte("{not json"), "agentk.alert.v1", t0, &map[string]any{})
	require.ErrorIs(t, err, envelope.ErrMalformed)
}

// TestVerifyProducedAsOfIssue: VerifyProduced expects the producer as Open
// does, at the time it is given.
func TestVerifyProducedAsOfIssue(t *testing.T) {
	t.Parallel()
	gate, bridge := newKey(t), newKey(t)
	ring, err := envelope.NewKeyring(envelope.KeyEntry{KeyID: gate.kid, Role: envelope.RoleGate}, envelope.KeyEntry{KeyID: bridge.kid, Role: envelope.RoleBridge})
	require.NoError(t, err)
	e, err := gate.signer.Seal("agentk.decision.v1", []byte(`{}`), t0, time.Minute)
	require.NoError(t, err)
	require.NoError(t, ring.VerifyProduced(e, "agentk.decision.v1", e.Issued()))
	require.ErrorIs(t, ring.VerifyProduced(e, "agentk.decision.v1", t0.Add(time.Hour)), envelope.ErrExpired)
	forged, err := bridge.signer.Seal("agentk.decision.v1", []byte(`{}`), t0, 0)
	require.NoError(t, err)
	require.ErrorIs(t, ring.VerifyProduced(forged, "agentk.decision.v1", t0), envelope.ErrWrongRole)
}
