package tools_test

import (
	"encoding/json"
	"maps"
	"testing"
	"time"

	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// lm7 is heldout7's back-to-back billing release: 6.1.1 (10:29:44) sends
// ledger-svc renewal amounts it panics on (gRPC INTERNAL, 55% of
// PostEntry), while the last 6.1.0 task's PostEntry calls in the same
// minutes succeed.
const (
	lm7     = "incidents-heldout7/lm7-back-to-back-billing-api"
	lm7Peer = "ledger-svc.lumen.internal"
)

// lm7Onset is the first of 6.1.1's failures.
var lm7Onset = time.Date(2026, 12, 7, 10, 30, 0, 0, time.UTC)

// isOldPostEntry reports whether s is a 6.1.0 PostEntry client span since
// the onset.
func isOldPostEntry(s incident.Span) bool {
	var m string
	raw, ok := s.Attributes["rpc.method"]
	return ok && json.Unmarshal(raw, &m) == nil && m == "PostEntry" && s.Kind == 3 && s.Service() == "billing-api" &&
		s.Resource["service.version"] == "6.1.0" && !s.Timestamp.Before(lm7Onset)
}

// TestOverviewVersionConfined: ledger-svc failing only on 6.1.1's calls,
// beneath them, while 6.1.0's calls in the same minutes succeed, is the
// release's effect: no failing dependency, no shared cause. The same
// callee failing 6.1.0's calls too (an outage during the rollout), with
// 6.1.0's calls since the onset cut to two (too few to tell), or answering
// UNAVAILABLE (its own state), stays both.
func TestOverviewVersionConfined(t *testing.T) {
	out := editedOverview(t, lm7, func(s []incident.Span) []incident.Span { return s })
	require.NotContains(t, out.Facts.FailingDependencies, lm7Peer)
	require.NotContains(t, out.Facts.CoRegressed, "ledger-svc")
	require.Contains(t, out.Facts.Downstream, "ledger-svc")
	require.Contains(t, out.Compact, "callees failing only on billing-api's calls from version \"6.1.1\"")

	failOld := func(spans []incident.Span) []incident.Span {
		n := 0
		for i, s := range spans {
			if isOldPostEntry(s) {
				if n++; n%2 == 0 {
					spans[i].HasError = true
				}
			}
		}
		return spans
	}
	out = editedOverview(t, lm7, failOld)
	require.Contains(t, out.Facts.FailingDependencies, lm7Peer)
	require.Contains(t, out.Facts.CoRegressed, "ledger-svc")

	fewOld := func(spans []incident.Span) []incident.Span {
		var kept []incident.Span
		n := 0
		for _, s := range spans {
			if isOldPostEntry(s) {
				if n++; n > 2 {
					continue
				}
			}
			kept = append(kept, s)
		}
		return kept
	}
	out = editedOverview(t, lm7, fewOld)
	require.Contains(t, out.Facts.FailingDependencies, lm7Peer)
	require.Contains(t, out.Facts.CoRegressed, "ledger-svc")

	// ledger-svc answering 6.1.1's failed calls UNAVAILABLE, its own
	// state, stays a failing dependency however the failures split by
	// version (mutant sandbox.confined_answer_class).
	unavailable := func(spans []incident.Span) []incident.Span {
		for i, s := range spans {
			if s.HasError && string(s.Attributes["rpc.grpc.status_code"]) == "13" {
				attrs := maps.Clone(s.Attributes)
				attrs["rpc.grpc.status_code"] = json.RawMessage("14")
				spans[i].Attributes = attrs
			}
		}
		return spans
	}
	out = editedOverview(t, lm7, unavailable)
	require.Contains(t, out.Facts.FailingDependencies, lm7Peer)
	require.Contains(t, out.Facts.CoRegressed, "ledger-svc")
}
