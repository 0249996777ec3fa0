package tools_test

import (
	"encoding/json"
	"testing"
	"time"

	"agentk/contracts/incident"
	"agentk/services/sandbox/internal/tools"

	"github.com/stretchr/testify/require"
)

// bundleOverview runs service_overview on e2e/incidents-heldout2's
// ho2-bad-bundle-quantities-storefront-pricing after edit changed its
// spans: storefront 5.14.0 sends bundle quantities pricing refuses (422),
// pricing's other caller (larder-beat's batch quotes) goes on as before.
func bundleOverview(t *testing.T, edit func([]incident.Span) []incident.Span) tools.Output {
	t.Helper()
	return editedOverview(t, "incidents-heldout2/ho2-bad-bundle-quantities-storefront-pricing", edit)
}

// otherCallerSince applies f to the spans of larder-beat's traces that begin
// at or after 10:20 (storefront's release), and keeps those f keeps.
func otherCallerSince(spans []incident.Span, f func(incident.Span) (incident.Span, bool)) []incident.Span {
	release := time.Date(2026, 12, 1, 10, 20, 0, 0, time.UTC)
	traces := map[string]bool{}
	for _, s := range spans {
		if s.Service() == "larder-beat" && s.ParentSpanID == "" && !s.Timestamp.Before(release) {
			traces[s.TraceID] = true
		}
	}
	var out []incident.Span
	for _, s := range spans {
		if !traces[s.TraceID] {
			out = append(out, s)
			continue
		}
		if s, ok := f(s); ok {
			out = append(out, s)
		}
	}
	return out
}

// TestRefusedCalleeIsNoSharedCause: pricing answers 422 to storefront's new
// requests and to no one else. As recorded, pricing's other failures (14 in
// the 16 minutes since its onset, 60 in its 74-minute baseline) cannot rule
// out a 1.5x rise at 5% (p = 0.13), so it stays a shared cause and a failing
// dependency. With its other caller's traces since the release dropped (its
// other failures since are then its slow spans alone) it refuses storefront's
// requests and leaves both, still the origin. When pricing refuses its other
// caller too (larder-beat's batch quotes answered 422), it failed on its own
// and stays. Kills mutant sandbox.refused_others (the last case).
func TestRefusedCalleeIsNoSharedCause(t *testing.T) {
	t.Parallel()
	asRecorded := bundleOverview(t, func(s []incident.Span) []incident.Span { return s })
	require.Contains(t, asRecorded.Facts.CoRegressed, "pricing", asRecorded.Compact)
	require.Contains(t, asRecorded.Facts.FailingDependencies, "pricing", asRecorded.Compact)

	quiet := bundleOverview(t, func(s []incident.Span) []incident.Span {
		return otherCallerSince(s, func(incident.Span) (incident.Span, bool) { return incident.Span{}, false })
	})
	require.NotContains(t, quiet.Facts.CoRegressed, "pricing", quiet.Compact)
	require.NotContains(t, quiet.Facts.FailingDependencies, "pricing", quiet.Compact)
	require.Contains(t, quiet.Facts.Downstream, "pricing", quiet.Compact)
	require.NotNil(t, quiet.Facts.Origin)
	require.Equal(t, "pricing", quiet.Facts.Origin.Service, "the refusing callee stays the origin: the gate reads its ledger")
	require.Contains(t, quiet.Compact, "callees that refuse storefront's requests as sent")

	refusesAll := bundleOverview(t, func(s []incident.Span) []incident.Span {
		return otherCallerSince(s, func(sp incident.Span) (incident.Span, bool) {
			sp.HasError, sp.StatusCode = true, 2
			sp.Attributes = map[string]json.RawMessage{"http.status_code": json.RawMessage("422"), "net.peer.name": json.RawMessage(`"pricing"`)}
			return sp, true
		})
	})
	require.Contains(t, refusesAll.Facts.CoRegressed, "pricing", refusesAll.Compact)
	require.NotContains(t, refusesAll.Facts.Downstream, "pricing", refusesAll.Compact)
}
