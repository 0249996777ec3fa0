package envelope_test

import (
	"crypto/ed25519"
	"testing"
	"time"

	"agentk/contracts/envelope"

	"github.com/nats-io/nkeys"
	"github.com/stretchr/testify/require"
)

// TestSignerSignsAsNKeys: the key derived once signs exactly as nkeys does
// (ed25519 is deterministic), for every kind of seed a signer takes.
func TestSignerSignsAsNKeys(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		create func() (nkeys.KeyPair, error)
	}{
		{"user", nkeys.CreateUser},
		{"account", nkeys.CreateAccount},
		{"server", nkeys.CreateServer},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			kp, err := tc.create()
			require.NoError(t, err)
			seed, err := kp.Seed()
			require.NoError(t, err)
			s, err := envelope.NewSigner(seed)
			require.NoError(t, err)
			env, err := s.Seal("agentk.alert.v1", []byte(`{"a":1}`), t0, 0)
			require.NoError(t, err)
			require.Len(t, env.Sig, ed25519.SignatureSize)
			pub, err := kp.PublicKey()
			require.NoError(t, err)
			ring, err := envelope.NewKeyring(envelope.KeyEntry{KeyID: pub, Role: envelope.RoleIngester})
			require.NoError(t, err)
			require.NoError(t, ring.Verify(env, "agentk.alert.v1", envelope.RoleIngester, t0))
			again, err := kp.Sign(signingInputOf(t, env))
			require.NoError(t, err)
			require.Equal(t, again, env.Sig, "the same signature nkeys makes")
		})
	}
}

// signingInputOf rebuilds the bytes a signature covers, as the envelope
// format defines them (length-prefixed subject, key id, nonce and payload,
// then the issue and expiry times).
func signingInputOf(t *testing.T, e envelope.Envelope) []byte {
	t.Helper()
	var b []byte
	b = append(b, "agentk.envelope.v1"...)
	for _, f := range [][]byte{[]byte(e.Subject), []byte(e.KeyID), []byte(e.Nonce), e.Payload} {
		b = appendUint64(b, uint64(len(f)))
		b = append(b, f...)
	}
	b = appendUint64(b, uint64(e.IssuedAt))
	return appendUint64(b, uint64(e.ExpiresAt))
}

func appendUint64(b []byte, v uint64) []byte {
	return append(b, byte(v>>56), byte(v>>48), byte(v>>40), byte(v>>32), byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
}

// TestVerifiedSignaturesAreRememberedNotTrusted: once an envelope's
// signature held, the keyring remembers that signature over those exact
// bytes only. Everything else is checked again on every call: a changed
// payload under the remembered signature, the role, the subject and time.
func TestVerifiedSignaturesAreRememberedNotTrusted(t *testing.T) {
	t.Parallel()
	ing := newKey(t)
	ring, err := envelope.NewKeyring(envelope.KeyEntry{KeyID: ing.kid, Role: envelope.RoleIngester})
	require.NoError(t, err)
	good, err := ing.signer.Seal("agentk.alert.v1", []byte(`{"incident_id":"inc-1"}`), t0, time.Hour)
	require.NoError(t, err)
	require.NoError(t, ring.Verify(good, "agentk.alert.v1", envelope.RoleIngester, t0), "first sight: verified and remembered")
	tampered := good
	tampered.Payload = []byte(`{"incident_id":"inc-2"}`)
	renonced := good
	renonced.Nonce = "another-nonce"
	tests := []struct {
		name    string
		env     envelope.Envelope
		subject string
		role    string
		now     time.Time
		want    error
	}{
		{"the same envelope again", good, "agentk.alert.v1", envelope.RoleIngester, t0, nil},
		{"another payload under the remembered signature", tampered, "agentk.alert.v1", envelope.RoleIngester, t0, envelope.ErrBadSignature},
		{"another nonce under the remembered signature", renonced, "agentk.alert.v1", envelope.RoleIngester, t0, envelope.ErrBadSignature},
		{"the same envelope for another role", good, "agentk.alert.v1", envelope.RoleGate, t0, envelope.ErrWrongRole},
		{"the same envelope for another subject", good, "agentk.report.v1", envelope.RoleIngester, t0, envelope.ErrWrongSubject},
		{"the same envelope once expired", good, "agentk.alert.v1", envelope.RoleIngester, t0.Add(2 * time.Hour), envelope.ErrExpired},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := ring.Verify(tc.env, tc.subject, tc.role, tc.now)
			if tc.want == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tc.want)
		})
	}
}

// BenchmarkSeal is sealing one small payload with a derived-once key.
func BenchmarkSeal(b *testing.B) {
	k := newKey(b)
	payload := []byte(`{"incident_id":"inc-1","service":"shop-api"}`)
	for b.Loop() {
		if _, err := k.signer.Seal("agentk.alert.v1", payload, t0, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerify is verifying one envelope the first time (a fresh
// keyring each op) and again (the signature remembered).
func BenchmarkVerify(b *testing.B) {
	k := newKey(b)
	env, err := k.signer.Seal("agentk.alert.v1", []byte(`{"incident_id":"inc-1","service":"shop-api"}`), t0, 0)
	if err != nil {
		b.Fatal(err)
	}
	entry := envelope.KeyEntry{KeyID: k.kid, Role: envelope.RoleIngester}
	b.Run("first", func(b *testing.B) {
		for b.Loop() {
			ring, _ := envelope.NewKeyring(entry)
			if err := ring.Verify(env, "agentk.alert.v1", envelope.RoleIngester, t0); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("again", func(b *testing.B) {
		ring, _ := envelope.NewKeyring(entry)
		for b.Loop() {
			if err := ring.Verify(env, "agentk.alert.v1", envelope.RoleIngester, t0); err != nil {
				b.Fatal(err)
			}
		}
	})
}
