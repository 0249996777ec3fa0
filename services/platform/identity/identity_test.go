package identity_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"agentk/contracts/envelope"
	"agentk/platform/identity"

	"github.com/stretchr/testify/require"
)

func TestEnsureIsIdempotentAndPrivate(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "keys")
	a, err := identity.Ensure(dir)
	require.NoError(t, err)
	b, err := identity.Ensure(dir)
	require.NoError(t, err)
	for _, r := range identity.Roles() {
		require.NotEmpty(t, a.PublicKey(r), r)
		require.Equal(t, a.PublicKey(r), b.PublicKey(r), "existing key of %s kept", r)
		st, err := os.Stat(identity.SeedFile(dir, r))
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o600), st.Mode().Perm(), r)
	}
	st, err := os.Stat(dir)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o700), st.Mode().Perm())

	kr, err := envelope.LoadKeyring(filepath.Join(dir, identity.KeyringFile))
	require.NoError(t, err)
	require.Len(t, kr.Entries(), len(envelope.Roles), "admin is not in the keyring")
	s, err := a.Signer(envelope.RoleGate)
	require.NoError(t, err)
	env, err := s.Seal("agentk.decision.v1", []byte(`{}`), time.Now(), 0)
	require.NoError(t, err)
	require.NoError(t, kr.Verify(env, "agentk.decision.v1", envelope.RoleGate, time.Now()))
}

func TestLoadRefusesUnusableSeeds(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		mangle  func(t *testing.T, dir string)
		wantErr error
	}{
		{name: "missing", mangle: func(t *testing.T, dir string) {
			require.NoError(t, os.Remove(identity.SeedFile(dir, envelope.RoleGate)))
		}, wantErr: identity.ErrMissing},
		{name: "world readable", mangle: func(t *testing.T, dir string) {
			require.NoError(t, os.Chmod(identity.SeedFile(dir, envelope.RoleGate), 0o644))
		}, wantErr: identity.ErrPerm},
		{name: "garbage", mangle: func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(identity.SeedFile(dir, envelope.RoleGate), []byte("SUnope"), 0o600))
		}, wantErr: identity.ErrBadSeed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			_, err := identity.Ensure(dir)
			require.NoError(t, err)
			tc.mangle(t, dir)
			_, err = identity.Load(dir)
			require.ErrorIs(t, err, tc.wantErr)
			require.Contains(t, err.Error(), "gate.nk")
		})
	}
}

func FuzzParseSeed(f *testing.F) {
	f.Add([]byte("SUAMK2FG4MI6UE3ACF3FK3OIQBCEIEZV7NSWFFEW63UXMRLFM2XLAXK4GY"))
	f.Add([]byte(""))
	f.Add([]byte("SAAGNJOZTRPYUNSFH5OVKM4LVLPWDW5AFTB6XNAFCZQFIN4QCVHUMC35Y4"))
	f.Fuzz(func(t *testing.T, b []byte) {
		seed, pub, err := identity.ParseSeed(b, "fuzz")
		if err != nil {
			require.ErrorIs(t, err, identity.ErrBadSeed)
			return
		}
		require.Equal(t, byte('U'), pub[0])
		require.NotEmpty(t, seed)
	})
}

// TestSignerIsDerivedOnce: every call for a role returns the one signer
// derived from its seed; other roles get their own; unknown roles none.
func TestSignerIsDerivedOnce(t *testing.T) {
	t.Parallel()
	set, err := identity.Ensure(filepath.Join(t.TempDir(), "keys"))
	require.NoError(t, err)
	tests := []struct {
		role    string
		wantErr error
	}{
		{envelope.RoleGate, nil},
		{envelope.RoleSandbox, nil},
		{"no-such-role", identity.ErrUnknownRole},
	}
	for _, tc := range tests {
		t.Run(tc.role, func(t *testing.T) {
			first, err := set.Signer(tc.role)
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			again, err := set.Signer(tc.role)
			require.NoError(t, err)
			require.Same(t, first, again)
			require.Equal(t, set.PublicKey(tc.role), first.KeyID())
		})
	}
}
