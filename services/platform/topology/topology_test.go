package topology_test

import (
	"testing"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/topology"

	"github.com/stretchr/testify/require"
)

func TestEveryDurableSubjectHasAStreamAndOneProducer(t *testing.T) {
	t.Parallel()
	for _, s := range contracts.AllSubjects {
		_, ok := topology.StreamFor(s)
		require.True(t, ok, s)
		var producers []string
		for _, g := range topology.Grants {
			for _, p := range g.Publish {
				if p == s {
					producers = append(producers, g.Role)
				}
			}
		}
		require.Len(t, producers, 1, "%s has exactly one producer: %v", s, producers)
	}
}

// The NATS permission table and the envelope signing table agree: a role may
// publish only what it may sign.
func TestGrantsAgreeWithSigningTable(t *testing.T) {
	t.Parallel()
	for _, r := range envelope.Roles {
		g, ok := topology.GrantFor(r)
		require.True(t, ok, "role %s has a grant", r)
		for _, s := range append(append([]string(nil), g.Publish...), g.Request...) {
			require.True(t, envelope.RoleMaySign(r, s), "%s publishes %s but may not sign it", r, s)
		}
		p, err := g.Permissions()
		require.NoError(t, err)
		for _, other := range envelope.Roles {
			if other == r {
				continue
			}
			require.NotContains(t, p.SubscribeAllow, topology.InboxPrefix(other)+".>")
		}
		require.False(t, p.Allows("$JS.API.STREAM.DELETE.AGENTK_ALERTS"))
		require.False(t, p.Allows("$JS.API.STREAM.PURGE.AGENTK_ACTIONS"))
		require.False(t, p.Allows("$JS.API.STREAM.CREATE.X"))
	}
}

func TestSubjectMatches(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, pat, subject string
		want               bool
	}{
		{name: "exact", pat: "a.b", subject: "a.b", want: true},
		{name: "star", pat: "a.*.c", subject: "a.b.c", want: true},
		{name: "star needs a token", pat: "a.*", subject: "a", want: false},
		{name: "tail", pat: "a.>", subject: "a.b.c", want: true},
		{name: "tail needs a token", pat: "a.>", subject: "a", want: false},
		{name: "longer subject", pat: "a.b", subject: "a.b.c", want: false},
		{name: "different", pat: "a.b", subject: "a.c", want: false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, topology.SubjectMatches(tc.pat, tc.subject))
		})
	}
}
