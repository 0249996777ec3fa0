package facts_test

import (
	"testing"

	"agentk/services/sandbox/internal/facts"

	"github.com/stretchr/testify/require"
)

// TestInboundMinutesCountBatchMessages: a batch consumer whose root spans
// are one per batch reads its inbound traffic in messages: 60 batches a
// minute of 2.5 messages, then 90 batches of 9 (a redrive that fills every
// batch) is a ratio of 5.4, not the 1.5 its invocations say; batches whose
// sizes stay put keep the invocations' ratio; a service that names no batch
// size, or a refused batch query, counts its spans as before.
func TestInboundMinutesCountBatchMessages(t *testing.T) {
	t.Parallel()
	onset := at(40)
	versions := response(t)
	for _, tc := range []struct {
		name           string
		after, perSpan float64
		batches        bool
		want           float64
	}{
		{"a redrive fills every batch", 90, 9, true, 5.4},
		{"more batches of the same size", 90, 2.5, true, 1.5},
		{"a release's failures leave the batches as they were", 60, 2.5, true, 1},
		{"no batch size named", 90, 9, false, 1.5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spans := func(i int) float64 {
				if i >= 40 {
					return tc.after
				}
				return 60
			}
			messages := func(i int) float64 {
				if i >= 40 {
					return tc.after * tc.perSpan
				}
				return 60 * 2.5
			}
			roots := response(t, ser{labels(), 0, minutes(0, 60, spans)})
			arrivals := facts.EntryArrivals{}
			if tc.batches {
				arrivals.Batches = response(t, ser{labels(), 0, minutes(0, 60, spans)}, ser{labels(), 1, minutes(0, 60, messages)})
			}
			in, err := facts.InboundMinutes(roots, versions, arrivals, at(0), onset)
			require.NoError(t, err)
			r := facts.TrafficRatio(in, at(0), onset)
			require.NotNil(t, r)
			require.InDelta(t, tc.want, *r, 0.01)
		})
	}
	_, err := facts.InboundMinutes(response(t), versions, facts.EntryArrivals{Batches: rawResponse()}, at(0), onset)
	require.ErrorIs(t, err, facts.ErrBadResponse)
}
