package bus_test

import (
	"context"
	"strings"
	"testing"

	"agentk/contracts/envelope"
	"agentk/platform/bus"
	"agentk/platform/topology"

	"github.com/stretchr/testify/require"
)

// TestPublishAsync: publishes issued together and awaited after are stored
// once each; a second publish of a message id is acknowledged as a
// duplicate (not fresh) and not stored; an unknown subject and a payload
// over the server's maximum fail, the latter as content.
func TestPublishAsync(t *testing.T) {
	t.Parallel()
	f := startFabric(t, bus.Config{})
	ing := connect(t, f, envelope.RoleIngester)
	defer func() { _ = ing.Close() }()
	ctx := context.Background()
	small := seal(t, f, envelope.RoleIngester, subjAlert, `{"n":1}`)
	huge := seal(t, f, envelope.RoleIngester, subjAlert, `"`+strings.Repeat("x", 2<<20)+`"`)
	tests := []struct {
		name    string
		subject string
		outs    []bus.Out
		fresh   []bool
		content bool
		unknown bool
		stored  int
	}{
		{name: "three at once", subject: subjAlert, outs: []bus.Out{{Envelope: small, MsgID: "a1"}, {Envelope: small, MsgID: "a2"}, {Envelope: small, MsgID: "a3"}},
			fresh: []bool{true, true, true}, stored: 3},
		{name: "a repeated id is a duplicate", subject: subjAlert, outs: []bus.Out{{Envelope: small, MsgID: "a1"}},
			fresh: []bool{false}, stored: 3},
		{name: "unknown subject", subject: "agentk.nowhere.v1", outs: []bus.Out{{Envelope: small, MsgID: "u1"}}, unknown: true, stored: 3},
		{name: "over the maximum payload", subject: subjAlert, outs: []bus.Out{{Envelope: huge, MsgID: "h1"}}, content: true, stored: 3},
	}
	stream, ok := topology.StreamFor(subjAlert)
	require.True(t, ok)
	for _, tc := range tests { // in order: each case sees the stream the last left
		t.Run(tc.name, func(t *testing.T) {
			waits := make([]func() (bool, error), len(tc.outs))
			for i, o := range tc.outs {
				waits[i] = ing.PublishAsync(ctx, tc.subject, o, nil)
			}
			for i, wait := range waits {
				fresh, err := wait()
				switch {
				case tc.unknown:
					require.ErrorIs(t, err, bus.ErrUnknownSubject)
				case tc.content:
					require.Error(t, err)
					require.True(t, bus.IsContent(err), "%v", err)
				default:
					require.NoError(t, err)
					require.Equal(t, tc.fresh[i], fresh)
				}
			}
			require.Len(t, streamMsgs(t, admin(t, f), stream), tc.stored)
		})
	}
}
