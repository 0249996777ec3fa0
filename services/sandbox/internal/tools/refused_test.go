package tools_test

import (
	"encoding/json"
	"maps"
	"slices"
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

// withStatus sets the HTTP status of every failing span of storefront's
// calls to pricing and of pricing's answers to them (the 422s) to code.
func withStatus(spans []incident.Span, code string) []incident.Span {
	out := slices.Clone(spans)
	for i, s := range out {
		if !s.HasError || s.Service() == "larder-beat" || string(s.Attributes["http.status_code"]) != "422" {
			continue
		}
		attrs := maps.Clone(s.Attributes)
		attrs["http.status_code"] = json.RawMessage(code)
		out[i].Attributes = attrs
	}
	return out
}

// TestRefusedCalleeIsNoSharedCause: pricing answers 422 to storefront's new
// requests and to no one else. As recorded, its error spans from its other
// caller (larder-beat's batch quotes: 4 in the 16 minutes since its onset,
// 35 in its 74-minute baseline) rule out a 1.5x rise and its p95 never
// leaves its baseline: it refuses storefront's requests, leaves CoRegressed
// and FailingDependencies, and stays the origin (the gate reads its ledger).
// It stays a shared cause and a failing dependency when it refuses its
// other caller too (larder-beat's batch quotes answered 422: kills mutant
// sandbox.refused_others), when it answers storefront with its own state
// (429, a rate limit; 503, an outage: the answer class, mutant
// sandbox.refusal_class), and when it slows for its other caller since the
// release (larder-beat's quotes five times slower: its latency, mutant
// sandbox.refused_latency).
func TestRefusedCalleeIsNoSharedCause(t *testing.T) {
	t.Parallel()
	asRecorded := bundleOverview(t, func(s []incident.Span) []incident.Span { return s })
	require.NotContains(t, asRecorded.Facts.CoRegressed, "pricing", asRecorded.Compact)
	require.NotContains(t, asRecorded.Facts.FailingDependencies, "pricing", asRecorded.Compact)
	require.Contains(t, asRecorded.Facts.Downstream, "pricing", asRecorded.Compact)
	require.NotNil(t, asRecorded.Facts.Origin)
	require.Equal(t, "pricing", asRecorded.Facts.Origin.Service, "the refusing callee stays the origin: the gate reads its ledger")
	require.Contains(t, asRecorded.Compact, "callees that refuse storefront's requests as sent")
	require.Contains(t, asRecorded.Compact, "pricing (its other callers' error spans: 0.25 a minute against 0.473 before)")

	stays := []struct {
		name string
		edit func([]incident.Span) []incident.Span
	}{
		{"refuses everybody", func(s []incident.Span) []incident.Span {
			return otherCallerSince(s, func(sp incident.Span) (incident.Span, bool) {
				sp.HasError, sp.StatusCode = true, 2
				sp.Attributes = map[string]json.RawMessage{"http.status_code": json.RawMessage("422"), "net.peer.name": json.RawMessage(`"pricing"`)}
				return sp, true
			})
		}},
		{"rate-limits storefront (429)", func(s []incident.Span) []incident.Span { return withStatus(s, "429") }},
		{"fails storefront (503)", func(s []incident.Span) []incident.Span { return withStatus(s, "503") }},
		{"slows for its other caller", func(s []incident.Span) []incident.Span {
			return otherCallerSince(s, func(sp incident.Span) (incident.Span, bool) {
				sp.DurationNano *= 5
				return sp, true
			})
		}},
	}
	for _, tc := range stays {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := bundleOverview(t, tc.edit)
			require.Contains(t, o.Facts.CoRegressed, "pricing", o.Compact)
			require.Contains(t, o.Facts.FailingDependencies, "pricing", o.Compact)
			require.NotContains(t, o.Facts.Downstream, "pricing", o.Compact)
		})
	}
}
