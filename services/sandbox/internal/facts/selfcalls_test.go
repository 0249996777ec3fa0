package facts_test

import (
	"fmt"
	"testing"

	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"

	"github.com/stretchr/testify/require"
)

// TestSelfCallPeers: a peer is the service calling itself when every
// sampled call to it (at least 5) has a server span of the service beneath
// it (grpc-gateway's loopback call into its own gRPC server); a call to the
// same loopback address with no server span of the service beneath (a mesh
// sidecar forwarding to another service, whose server span the sample of
// the service's own spans does not hold) keeps the peer a dependency.
func TestSelfCallPeers(t *testing.T) {
	type call struct {
		peer string
		self bool
	}
	rows := func(calls ...call) []signoz.RawRow {
		var out []signoz.RawRow
		for i, c := range calls {
			trace, id := fmt.Sprintf("t%d", i), fmt.Sprintf("c%d", i)
			out = append(out, signoz.RawRow{Data: map[string]any{"trace_id": trace, "span_id": "h" + id, "parent_span_id": "", "kind_string": "Server"}},
				signoz.RawRow{Data: map[string]any{"trace_id": trace, "span_id": id, "parent_span_id": "h" + id, "kind_string": "Client", "server.address": c.peer}})
			if c.self {
				out = append(out, signoz.RawRow{Data: map[string]any{"trace_id": trace, "span_id": "s" + id, "parent_span_id": id, "kind_string": "Server"}})
			}
		}
		return out
	}
	n := func(k int, c call) []call {
		out := make([]call, k)
		for i := range out {
			out[i] = c
		}
		return out
	}
	gw, sidecar, registry := call{"127.0.0.1", true}, call{"127.0.0.1", false}, call{"device-registry", false}
	for _, tc := range []struct {
		name  string
		calls []call
		want  []string
	}{
		{"grpc-gateway calling itself", append(n(6, gw), n(6, registry)...), []string{"127.0.0.1"}},
		{"a mesh sidecar on loopback", n(8, sidecar), nil},
		{"the gateway's self calls and a sidecar's on one address", append(n(12, gw), n(2, sidecar)...), nil},
		{"too few calls to say", n(4, gw), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, facts.SelfCallPeers(rows(tc.calls...), []string{"server.address", "net.peer.name"}))
		})
	}
	// A server span in another trace with the same span id is not beneath.
	r := rows(n(6, sidecar)...)
	r = append(r, signoz.RawRow{Data: map[string]any{"trace_id": "other", "span_id": "x", "parent_span_id": "c0", "kind_string": "Server"}})
	require.Empty(t, facts.SelfCallPeers(r, []string{"server.address"}))
}
