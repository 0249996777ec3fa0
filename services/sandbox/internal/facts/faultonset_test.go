package facts_test

import (
	"testing"
	"time"

	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"

	"github.com/stretchr/testify/require"
)

// TestDependencyFaultsAtOnset: a failing dependency whose first failed
// calls since the onset (the minute from the first) mostly carry its own
// failure is a dependency fault although its later failures, more
// numerous, say nothing of whose failure they are (heldout8's Memorystore
// failover: refused connections for 80 s, then the cold primary's
// timeouts). Not when the first minute's failures are not the peer's own,
// when they are too few, or when they came before the onset. On main
// before this reading, and with mutant sandbox.faults_at_onset, the
// failover case named no fault.
func TestDependencyFaultsAtOnset(t *testing.T) {
	t.Parallel()
	onset := time.Date(2026, 12, 9, 9, 44, 0, 0, time.UTC)
	const peer = "10.91.0.4"
	row := func(at time.Duration, msg string) signoz.RawRow {
		return signoz.RawRow{Timestamp: onset.Add(at), Data: map[string]any{"service.name": "session-web", "kind_string": "Client",
			"has_error": true, "net.peer.name": peer, "status_message": msg}}
	}
	const (
		refused = "Error connecting to Redis on 10.91.0.4:6378 (Errno::ECONNREFUSED)"
		waited  = "Waited 1.0 seconds"
		auth    = "WRONGPASS invalid username-password pair or user is disabled."
	)
	series := func(from, step time.Duration, n int, msg string) []signoz.RawRow {
		var out []signoz.RawRow
		for i := 0; i < n; i++ {
			out = append(out, row(from+time.Duration(i)*step, msg))
		}
		return out
	}
	tests := []struct {
		name string
		rows []signoz.RawRow
		want []string
	}{
		{"refused for a minute, then more timeouts", append(series(10*time.Second, 10*time.Second, 5, refused),
			series(2*time.Minute, 40*time.Second, 12, waited)...), []string{peer}},
		{"timeouts first, refusals later", append(series(10*time.Second, 10*time.Second, 5, waited),
			series(3*time.Minute, 10*time.Second, 5, refused)...), nil},
		{"two refusals at the onset: too few", append(series(10*time.Second, 10*time.Second, 2, refused),
			series(2*time.Minute, 40*time.Second, 12, waited)...), nil},
		{"refused credentials first", append(series(10*time.Second, 10*time.Second, 5, auth),
			series(2*time.Minute, 40*time.Second, 12, waited)...), nil},
		{"refusals before the onset", append(series(-50*time.Second, 10*time.Second, 5, refused),
			series(2*time.Minute, 40*time.Second, 12, waited)...), nil},
		{"refused throughout (the majority reading)", series(10*time.Second, 30*time.Second, 8, refused), []string{peer}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := facts.DependencyFaults(tc.rows, "session-web", onset, []string{peer}, []string{"server.address", "net.peer.name"})
			require.Equal(t, tc.want, got)
		})
	}
}
