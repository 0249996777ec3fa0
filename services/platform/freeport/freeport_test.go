package freeport

import (
	"net"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPortIsBelowTheEphemeralRangeAndBindable(t *testing.T) {
	seen := map[int]bool{}
	for range 50 {
		p := Port(t)
		require.GreaterOrEqual(t, p, floor)
		require.Less(t, p, ephemeralStart(), "a port in the ephemeral range can be taken by any outgoing connection")
		require.False(t, seen[p], "port %d handed out twice", p)
		seen[p] = true
	}
	l, err := net.Listen("tcp", Addr(t))
	require.NoError(t, err)
	require.NoError(t, l.Close())
}
