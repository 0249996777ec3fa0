package facts_test

import (
	"testing"

	"agentk/services/sandbox/internal/facts"

	"github.com/stretchr/testify/require"
)

// TestInboundMinutesCountAttemptsOnce: a worker with no root span (its
// workflow is started by a caller) whose entry spans are one workflow
// span and one activity attempt each before its release, and a workflow
// span and four attempts beneath the same StartActivity parent after it,
// read 10 then 50 entry spans a minute; counted by distinct parent its
// inbound requests stay at 20 a minute (a traffic ratio of 1, not 2.5).
// Entry spans with distinct parents (a caller's own retries, each its own
// client span) are all counted; a refused attempts query counts every
// entry span, as before (mutant sandbox.entry_attempts).
func TestInboundMinutesCountAttemptsOnce(t *testing.T) {
	t.Parallel()
	onset := at(40)
	workflows := 10.0
	entries := func(i int) float64 {
		if i >= 40 {
			return workflows * 5
		}
		return workflows * 2
	}
	versions := response(t, ser{labels("service.version", "3.1.7"), 0, minutes(0, 60, entries)})
	roots := response(t)
	attempts := func(distinct func(int) float64) ser { return ser{labels(), 1, minutes(0, 60, distinct)} }
	count := ser{labels(), 0, minutes(0, 60, entries)}
	ratio := func(att ...ser) float64 {
		t.Helper()
		in, err := facts.InboundMinutes(roots, versions, facts.EntryArrivals{Attempts: response(t, att...)}, at(0), onset)
		require.NoError(t, err)
		r := facts.TrafficRatio(in, at(0), onset)
		require.NotNil(t, r)
		return *r
	}
	require.InDelta(t, 1.0, ratio(count, attempts(func(int) float64 { return workflows * 2 })), 1e-9,
		"four attempts beneath one StartActivity are one request")
	require.InDelta(t, 2.5, ratio(count, attempts(entries)), 1e-9, "entry spans with distinct parents are requests each")
	require.InDelta(t, 2.5, ratio(), 1e-9, "no attempts answer: every entry span counts")
	in, err := facts.InboundMinutes(roots, versions, facts.EntryArrivals{Attempts: rawResponse()}, at(0), onset)
	require.ErrorIs(t, err, facts.ErrBadResponse)
	require.Nil(t, in)
}
