package tools_test

import (
	"testing"
	"time"

	"agentk/contracts/incident"
	"agentk/services/sandbox/internal/tools"

	"github.com/stretchr/testify/require"
)

// stormOverview runs service_overview on e2e/incidents-heldout2's
// ho2-storm-after-slow-episode-delivery-slots after edit changed its spans:
// delivery-slots 7.2.0 gives up on routing-engine after 350 ms (7.1.3 waited
// up to 3 s, and did so through routing-engine's slow spell an hour before)
// and retries; routing-engine answers most of the calls it gave up on.
func stormOverview(t *testing.T, edit func([]incident.Span) []incident.Span) tools.Output {
	t.Helper()
	return editedOverview(t, "incidents-heldout2/ho2-storm-after-slow-episode-delivery-slots", edit)
}

// TestImpatientCallsAreNoFailingDependency: as recorded, delivery-slots'
// failed calls to routing-engine since the onset are mostly answered (the
// 350 ms timeout, routing-engine's 200 after it) and before the onset
// delivery-slots waited far longer on answered calls: routing-engine is no
// dependency failing at its usual call rate. The traps: the same world
// under a client that never waited longer (every call to routing-engine
// before the onset, and routing-engine's span beneath it, capped at 340 ms,
// as an unchanged 350 ms timeout would have left them), and one where
// routing-engine never saw the failed calls (its spans beneath them
// dropped: a connection refused), keep routing-engine failing.
func TestImpatientCallsAreNoFailingDependency(t *testing.T) {
	t.Parallel()
	onset := time.Date(2026, 11, 26, 11, 39, 0, 0, time.UTC)
	asRecorded := stormOverview(t, func(s []incident.Span) []incident.Span { return s })
	require.NotContains(t, asRecorded.Facts.FailingDependencies, "routing-engine", asRecorded.Compact)

	calls := func(spans []incident.Span) map[string]incident.Span {
		out := map[string]incident.Span{}
		for _, s := range spans {
			if s.Service() == "delivery-slots" && s.Kind == 3 {
				out[s.SpanID] = s
			}
		}
		return out
	}
	patient := stormOverview(t, func(spans []incident.Span) []incident.Span {
		cl := calls(spans)
		out := make([]incident.Span, 0, len(spans))
		for _, s := range spans {
			_, isCall := cl[s.SpanID]
			_, beneath := cl[s.ParentSpanID]
			if (isCall || beneath) && s.Timestamp.Before(onset) && s.DurationNano > int64(340*time.Millisecond) {
				s.DurationNano = int64(340 * time.Millisecond)
			}
			out = append(out, s)
		}
		return out
	})
	require.Contains(t, patient.Facts.FailingDependencies, "routing-engine", patient.Compact)

	unseen := stormOverview(t, func(spans []incident.Span) []incident.Span {
		cl := calls(spans)
		out := make([]incident.Span, 0, len(spans))
		for _, s := range spans {
			if p, ok := cl[s.ParentSpanID]; ok && p.HasError && !s.Timestamp.Before(onset) {
				continue
			}
			out = append(out, s)
		}
		return out
	})
	require.Contains(t, unseen.Facts.FailingDependencies, "routing-engine", unseen.Compact)
}
