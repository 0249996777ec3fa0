package bus_test

import (
	"path/filepath"
	"testing"
	"time"

	"agentk/contracts/envelope"
	"agentk/platform/bus"
	"agentk/platform/identity"

	"github.com/stretchr/testify/require"
)

// TestMessageOpen: a handler opens the envelope the router parsed as
// Keyring.Open opens the bytes, with the same errors; a message built from
// its bytes alone is parsed there.
func TestMessageOpen(t *testing.T) {
	t.Parallel()
	set, err := identity.Ensure(filepath.Join(t.TempDir(), "keys"))
	require.NoError(t, err)
	s, err := set.Signer(envelope.RoleIngester)
	require.NoError(t, err)
	kr, err := set.Keyring()
	require.NoError(t, err)
	now := time.Date(2026, 11, 4, 10, 0, 0, 0, time.UTC)
	good, err := s.Seal("agentk.alert.v1", []byte(`{"incident_id":"inc-1"}`), now, 0)
	require.NoError(t, err)
	notJSON, err := s.Seal("agentk.alert.v1", []byte(`not json`), now, 0)
	require.NoError(t, err)
	gs, err := set.Signer(envelope.RoleGate)
	require.NoError(t, err)
	byGate, err := gs.Seal("agentk.alert.v1", []byte(`{"incident_id":"inc-1"}`), now, 0)
	require.NoError(t, err)
	tampered := good
	tampered.Payload = []byte(`{"incident_id":"inc-2"}`)
	tests := []struct {
		name string
		m    bus.Message
		want error
	}{
		{"parsed by the router", bus.Message{Data: good.Marshal(), Envelope: good}, nil},
		{"bytes only", bus.Message{Data: good.Marshal()}, nil},
		{"signed by a role that does not produce the subject", bus.Message{Data: byGate.Marshal(), Envelope: byGate}, envelope.ErrWrongRole},
		{"tampered payload", bus.Message{Data: tampered.Marshal(), Envelope: tampered}, envelope.ErrBadSignature},
		{"payload not JSON", bus.Message{Data: notJSON.Marshal(), Envelope: notJSON}, envelope.ErrMalformed},
		{"garbage bytes", bus.Message{Data: []byte("{")}, envelope.ErrMalformed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got struct {
				IncidentID string `json:"incident_id"`
			}
			err := tc.m.Open(kr, "agentk.alert.v1", now, &got)
			var want struct {
				IncidentID string `json:"incident_id"`
			}
			_, wantErr := kr.Open(tc.m.Data, "agentk.alert.v1", now, &want)
			if tc.want != nil {
				require.ErrorIs(t, err, tc.want)
				require.ErrorIs(t, wantErr, tc.want, "the same error as Keyring.Open")
				return
			}
			require.NoError(t, err)
			require.NoError(t, wantErr)
			require.Equal(t, "inc-1", got.IncidentID)
			require.Equal(t, want, got)
		})
	}
}
