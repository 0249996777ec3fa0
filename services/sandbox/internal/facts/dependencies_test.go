package facts_test

import (
	"testing"

	"agentk/services/sandbox/internal/facts"

	"github.com/stretchr/testify/require"
)

// peerMinutes is 60 minutes of a peer's client spans from t0: calls a
// minute (callsSince from minute 40), and errors a minute from failFrom on.
func peerMinutes(calls, callsSince, errs float64, failFrom int) []facts.Minute {
	var ms []facts.Minute
	for i := range 60 {
		m := facts.Minute{At: at(i), Requests: calls, P95Ms: 40 + float64(i%3)}
		if i >= 40 {
			m.Requests = callsSince
		}
		if i >= failFrom {
			m.Errors = errs
		}
		ms = append(ms, m)
	}
	return ms
}

// TestFailingDependencies: a peer whose client spans' errors left their
// baseline within CoRegressionWindow of the service's onset, called at its
// usual rate, is a failing dependency; one whose calls a retry storm
// multiplied, one failing ten minutes later, one only slower, and one never
// failing are not.
func TestFailingDependencies(t *testing.T) {
	t.Parallel()
	onset := at(40)
	on := facts.Onset{At: &onset, Signal: "error_rate", BaselineFrom: t0}
	slow := peerMinutes(20, 20, 0, 60)
	for i := 40; i < 60; i++ {
		slow[i].P95Ms = 900
	}
	for _, tt := range []struct {
		name string
		ms   []facts.Minute
		want []string
	}{
		{"failing at its usual rate", peerMinutes(20, 20, 8, 40), []string{"ledger"}},
		{"failing two minutes before the service", peerMinutes(20, 20, 8, 38), []string{"ledger"}},
		{"failing under three times the calls", peerMinutes(20, 60, 24, 40), nil},
		{"failing ten minutes after the service", peerMinutes(20, 20, 8, 50), nil},
		{"only slower", slow, nil},
		{"never failing", peerMinutes(20, 20, 0, 60), nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, facts.FailingDependencies(map[string][]facts.Minute{"ledger": tt.ms}, at(59), on))
		})
	}
}

// TestPeakCalls: the peer whose calls rose most since the onset, and by how
// much; none when no peer was called in the baseline.
func TestPeakCalls(t *testing.T) {
	t.Parallel()
	onset := at(40)
	on := facts.Onset{At: &onset, Signal: "error_rate", BaselineFrom: t0}
	r, peer := facts.PeakCalls(map[string][]facts.Minute{"ledger": peerMinutes(20, 20, 0, 60), "cache": peerMinutes(10, 40, 0, 60)}, on)
	require.NotNil(t, r)
	require.Equal(t, "cache", peer)
	require.InDelta(t, 4, *r, 1e-9)
	late := peerMinutes(0, 20, 0, 60)
	r, peer = facts.PeakCalls(map[string][]facts.Minute{"new": late}, on)
	require.Nil(t, r)
	require.Empty(t, peer)
}
