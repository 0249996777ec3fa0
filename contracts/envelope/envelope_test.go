package envelope_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"agentk/contracts/envelope"

	"github.com/nats-io/nkeys"
	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2026, 11, 30, 10, 20, 0, 0, time.UTC)

type key struct {
	signer *envelope.Signer
	kid    string
}

func newKey(t testing.TB) key {
	t.Helper()
	kp, err := nkeys.CreateUser()
	require.NoError(t, err)
	seed, err := kp.Seed()
	require.NoError(t, err)
	s, err := envelope.NewSigner(seed)
	require.NoError(t, err)
	return key{signer: s, kid: s.KeyID()}
}

var sentinels = []error{
	envelope.ErrMalformed, envelope.ErrUnknownKey, envelope.ErrBadSignature, envelope.ErrWrongRole,
	envelope.ErrWrongSubject, envelope.ErrExpired, envelope.ErrNotYetValid, envelope.ErrRoleForbidden,
}

func TestOpenRejectsEachTamperingWithItsOwnError(t *testing.T) {
	t.Parallel()
	ingester, gate, investigator, stranger := newKey(t), newKey(t), newKey(t), newKey(t)
	ring, err := envelope.NewKeyring(
		envelope.KeyEntry{KeyID: ingester.kid, Role: envelope.RoleIngester},
		envelope.KeyEntry{KeyID: gate.kid, Role: envelope.RoleGate},
		envelope.KeyEntry{KeyID: investigator.kid, Role: envelope.RoleInvestigator},
	)
	require.NoError(t, err)
	payload := []byte(`{"incident_id":"inc-1","service":"shop-api"}`)
	sealAlert := func(k key, subject string, ttl time.Duration) envelope.Envelope {
		e, err := k.signer.Seal(subject, payload, t0, ttl)
		require.NoError(t, err)
		return e
	}

	tests := []struct {
		name        string
		data        func() []byte
		wantSubject string
		wantRole    string
		now         time.Time
		want        error
	}{
		{name: "valid", data: func() []byte { return sealAlert(ingester, "agentk.alert.v1", 0).Marshal() },
			wantSubject: "agentk.alert.v1", wantRole: envelope.RoleIngester, now: t0},
		{name: "not json", data: func() []byte { return []byte("{not json") },
			wantSubject: "agentk.alert.v1", wantRole: envelope.RoleIngester, now: t0, want: envelope.ErrMalformed},
		{name: "tampered payload", data: func() []byte {
			e := sealAlert(ingester, "agentk.alert.v1", 0)
			e.Payload = []byte(`{"incident_id":"inc-1","service":"payments"}`)
			return e.Marshal()
		}, wantSubject: "agentk.alert.v1", wantRole: envelope.RoleIngester, now: t0, want: envelope.ErrBadSignature},
		{name: "tampered expiry", data: func() []byte {
			e := sealAlert(gate, "agentk.decision.v1", time.Minute)
			e.ExpiresAt = 0
			return e.Marshal()
		}, wantSubject: "agentk.decision.v1", wantRole: envelope.RoleGate, now: t0, want: envelope.ErrBadSignature},
		{name: "wrong key: signed by one, claims another's kid", data: func() []byte {
			e := sealAlert(stranger, "agentk.alert.v1", 0)
			e.KeyID = ingester.kid
			return e.Marshal()
		}, wantSubject: "agentk.alert.v1", wantRole: envelope.RoleIngester, now: t0, want: envelope.ErrBadSignature},
		{name: "unknown key id", data: func() []byte { return sealAlert(stranger, "agentk.alert.v1", 0).Marshal() },
			wantSubject: "agentk.alert.v1", wantRole: envelope.RoleIngester, now: t0, want: envelope.ErrUnknownKey},
		{name: "key of the wrong role", data: func() []byte { return sealAlert(gate, "agentk.alert.v1", 0).Marshal() },
			wantSubject: "agentk.alert.v1", wantRole: envelope.RoleIngester, now: t0, want: envelope.ErrWrongRole},
		{name: "role may not sign the subject", data: func() []byte { return sealAlert(investigator, "agentk.decision.v1", 0).Marshal() },
			wantSubject: "agentk.decision.v1", wantRole: envelope.RoleInvestigator, now: t0, want: envelope.ErrRoleForbidden},
		{name: "wrong subject", data: func() []byte { return sealAlert(gate, "agentk.decision.v1", 0).Marshal() },
			wantSubject: "agentk.decision.v1.other", wantRole: envelope.RoleGate, now: t0, want: envelope.ErrWrongSubject},
		{name: "expired", data: func() []byte { return sealAlert(gate, "agentk.decision.v1", 15*time.Minute).Marshal() },
			wantSubject: "agentk.decision.v1", wantRole: envelope.RoleGate, now: t0.Add(15 * time.Minute), want: envelope.ErrExpired},
		{name: "just before expiry", data: func() []byte { return sealAlert(gate, "agentk.decision.v1", 15*time.Minute).Marshal() },
			wantSubject: "agentk.decision.v1", wantRole: envelope.RoleGate, now: t0.Add(15*time.Minute - time.Nanosecond)},
		{name: "issued in the future", data: func() []byte { return sealAlert(ingester, "agentk.alert.v1", 0).Marshal() },
			wantSubject: "agentk.alert.v1", wantRole: envelope.RoleIngester, now: t0.Add(-envelope.MaxClockSkew - time.Second), want: envelope.ErrNotYetValid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var v map[string]any
			_, err := ring.OpenAs(tc.data(), tc.wantSubject, tc.wantRole, tc.now, &v)
			if tc.want == nil {
				require.NoError(t, err)
				require.Equal(t, "shop-api", v["service"])
				return
			}
			require.ErrorIs(t, err, tc.want)
			for _, other := range sentinels {
				if other != tc.want {
					require.False(t, errors.Is(err, other), "%v also matches %v", err, other)
				}
			}
		})
	}
}

func TestWrongSubjectBetweenTwoSubjectsTheRoleMaySign(t *testing.T) {
	t.Parallel()
	deployer := newKey(t)
	ring, err := envelope.NewKeyring(envelope.KeyEntry{KeyID: deployer.kid, Role: envelope.RoleDeployer})
	require.NoError(t, err)
	e, err := deployer.signer.Seal("agentk.ledger.v1", []byte(`{}`), t0, 0)
	require.NoError(t, err)
	_, err = ring.Open(e.Marshal(), "agentk.cooldown.v1", t0, &map[string]any{})
	require.ErrorIs(t, err, envelope.ErrWrongSubject)
}

func TestPayloadIsCarriedByteForByte(t *testing.T) {
	t.Parallel()
	k := newKey(t)
	payload := []byte("{\"b\":1,  \"a\":2}\n")
	e, err := k.signer.Seal("agentk.alert.v1", payload, t0, 0)
	require.NoError(t, err)
	back, err := envelope.Parse(e.Marshal())
	require.NoError(t, err)
	require.Equal(t, payload, back.Payload)
	require.Equal(t, envelope.Digest(payload), back.Digest())
}

func TestNewKeyringRefusesBadEntries(t *testing.T) {
	t.Parallel()
	k := newKey(t)
	tests := []struct {
		name    string
		entries []envelope.KeyEntry
		want    string
	}{
		{"unknown role", []envelope.KeyEntry{{KeyID: k.kid, Role: "root"}}, "unknown role"},
		{"bad public key", []envelope.KeyEntry{{KeyID: "UNOTAKEY", Role: envelope.RoleGate}}, "bad public key"},
		{"one key two roles", []envelope.KeyEntry{{KeyID: k.kid, Role: envelope.RoleGate}, {KeyID: k.kid, Role: envelope.RoleBridge}}, "listed for"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := envelope.NewKeyring(tc.entries...)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func FuzzParse(f *testing.F) {
	kp, err := nkeys.FromRawSeed(nkeys.PrefixByteUser, make([]byte, 32))
	require.NoError(f, err)
	seed, err := kp.Seed()
	require.NoError(f, err)
	s, err := envelope.NewSigner(seed)
	require.NoError(f, err)
	e, err := s.Seal("agentk.alert.v1", []byte(`{"service":"shop-api"}`), t0, time.Hour)
	require.NoError(f, err)
	f.Add(e.Marshal())
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"v":1,"subject":"x","kid":"k","nonce":"n","sig":"!!"}`))
	ring, err := envelope.NewKeyring(envelope.KeyEntry{KeyID: s.KeyID(), Role: envelope.RoleIngester})
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := envelope.Parse(b)
		if err != nil {
			require.ErrorIs(t, err, envelope.ErrMalformed)
			return
		}
		require.NotEmpty(t, e.Subject)
		require.NotEmpty(t, e.Sig)
		again, err := envelope.Parse(e.Marshal())
		require.NoError(t, err)
		require.Equal(t, e, again)
		// Verification of arbitrary input must fail with a sentinel or pass, never panic.
		var v json.RawMessage
		if _, err := ring.Open(b, "agentk.alert.v1", t0, &v); err != nil {
			matched := false
			for _, s := range sentinels {
				matched = matched || errors.Is(err, s)
			}
			require.True(t, matched, "unclassified error %v", err)
		}
	})
}

func TestExpiresBy(t *testing.T) {
	t.Parallel()
	early := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	late := early.Add(time.Minute)
	tests := []struct {
		name     string
		envelope time.Time
		payload  time.Time
		want     time.Time
	}{
		{"neither expires", time.Time{}, time.Time{}, time.Time{}},
		{"only the envelope", early, time.Time{}, early},
		{"only the payload", time.Time{}, early, early},
		{"the envelope first", early, late, early},
		{"the payload first", late, early, early},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var e envelope.Envelope
			if !tt.envelope.IsZero() {
				e.ExpiresAt = tt.envelope.UnixNano()
			}
			require.True(t, tt.want.Equal(e.ExpiresBy(tt.payload)), "%v", e.ExpiresBy(tt.payload))
		})
	}
}
