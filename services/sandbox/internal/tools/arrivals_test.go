package tools_test

import (
	"testing"

	"agentk/contracts/incident"

	"github.com/stretchr/testify/require"
)

// TestConsumerArrivalsReadFromProducers: heldout4's crashing consumer
// (ho4-amqp-crash-progression-worker: 4.2.0 fails 88% of match.results,
// RabbitMQ redelivers each failed message twice, the tail sampler keeps
// every failed delivery) reads 25x its deliveries and the same publishes;
// the finale's surge (ho4-trap-finale-surge-replay-indexer) reads five
// times the publishes. The release comparison leaves the redelivered
// messages out: of the old version's 94 deliveries since the onset, 59 were
// 4.2.0's failures delivered again. The 23 failures left are the
// generator's (each delivery draws its pod's version afresh during the
// rollout, so 4.2.0's failures of fresh messages are recorded on 4.1.3
// pods); with them processed as 4.1.3 would, the old version fails none.
func TestConsumerArrivalsReadFromProducers(t *testing.T) {
	t.Parallel()
	const dir = "incidents-heldout4/ho4-amqp-crash-progression-worker"
	out := editedOverview(t, dir, func(s []incident.Span) []incident.Span { return s })
	f := out.Facts
	require.NotNil(t, f.TrafficRatio, out.Compact)
	require.Greater(t, *f.TrafficRatio, 20.0, out.Compact)
	require.NotNil(t, f.PublishedArrivals, out.Compact)
	require.Equal(t, []string{"match.results"}, f.PublishedArrivals.Destinations)
	require.Less(t, f.PublishedArrivals.Ratio, 1.2, out.Compact)
	require.Contains(t, out.Compact, "messages published to match.results since the onset vs baseline")
	require.Contains(t, out.Compact, "deliveries of messages delivered again left out since the onset")
	require.NotNil(t, f.Release, out.Compact)
	require.Positive(t, f.Release.Redelivered, out.Compact)
	require.Equal(t, []int64{35, 23}, []int64{f.Release.OtherVersions.Requests, f.Release.OtherVersions.Errors}, out.Compact)

	fixed := editedOverview(t, dir, func(spans []incident.Span) []incident.Span {
		for i, s := range spans {
			if s.Service() == "progression-worker" && s.Resource["service.version"] == "4.1.3" && s.Kind == 5 && s.HasError && s.Attributes["messaging.rabbitmq.message.redelivered"] == nil {
				spans[i].HasError, spans[i].StatusCode, spans[i].StatusMessage = false, 0, ""
			}
		}
		return spans
	})
	require.Equal(t, int64(0), fixed.Facts.Release.OtherVersions.Errors, fixed.Compact)
	require.Equal(t, int64(0), fixed.Facts.Release.OtherNewErrors, fixed.Compact)

	surge := editedOverview(t, "incidents-heldout4/ho4-trap-finale-surge-replay-indexer", func(s []incident.Span) []incident.Span { return s })
	require.NotNil(t, surge.Facts.PublishedArrivals, surge.Compact)
	require.Greater(t, surge.Facts.PublishedArrivals.Ratio, 4.0, surge.Compact)
}
