package facts_test

import (
	"testing"

	"agentk/services/sandbox/internal/facts"

	"github.com/stretchr/testify/require"
)

// TestIsDownstream: a callee is an effect only when most of its failing
// traces fail beneath the service's calls, most on calls the service
// abandoned, and fewer than half on calls it did not abandon. Kills mutant
// sandbox.downstream_effect ("failing on its own beneath the calls").
func TestIsDownstream(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		p    facts.Propagation
		want bool
	}{
		{"abandoned calls", facts.Propagation{Traces: 10, Under: 9, Effect: 8, Cause: 1}, true},
		{"failing on its own beneath the calls", facts.Propagation{Traces: 10, Under: 9, Effect: 1, Cause: 8}, false},
		{"abandoned, but as often failing on its own", facts.Propagation{Traces: 10, Under: 9, Effect: 8, Cause: 5}, false},
		{"mostly not beneath the service", facts.Propagation{Traces: 10, Under: 4, Effect: 4}, false},
		{"no traces read", facts.Propagation{}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, facts.IsDownstream(tt.p))
		})
	}
}

// TestWithoutDownstream: peers named as a downstream callee leave the
// failing (or slow) dependencies; a peer named otherwise stays.
func TestWithoutDownstream(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name             string
		deps, downstream []string
		want             []string
	}{
		{"none downstream", []string{"ledger", "db.internal"}, nil, []string{"ledger", "db.internal"}},
		{"ledger downstream", []string{"ledger", "db.internal"}, []string{"ledger"}, []string{"db.internal"}},
		{"a host name is not the service", []string{"ledger.svc:8080"}, []string{"ledger"}, []string{"ledger.svc:8080"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, facts.WithoutDownstream(tt.deps, tt.downstream))
		})
	}
	require.Equal(t, []string{"db.internal"}, facts.SlowPeers([]facts.SlowDependency{{Peer: "ledger"}, {Peer: "db.internal"}}, []string{"ledger"}))
}
