package facts_test

import (
	"testing"

	"agentk/services/sandbox/internal/facts"

	"github.com/stretchr/testify/require"
)

// stepSeries is a per-minute series over minutes [0, 60): rate before minute 40,
// after from it on.
func stepSeries(before, after float64) []facts.Minute {
	var out []facts.Minute
	for i := 0; i < 60; i++ {
		n := before
		if i >= 40 {
			n = after
		}
		out = append(out, facts.Minute{At: at(i), Requests: n})
	}
	return out
}

// TestPublishedArrivals: a queue consumer's arrivals are its producers'
// publishes, scaled by the baseline's deliveries per publish, its other
// inbound spans counted as they are; read only when the baseline's
// deliveries were within 2x of its publishes either way. Kills mutant
// sandbox.published_arrivals (the neighbour's exchange and the batch
// producer: without the calibration both report a ratio).
func TestPublishedArrivals(t *testing.T) {
	onset := at(40)
	on := facts.Onset{At: &onset, BaselineFrom: at(10)}
	for _, tc := range []struct {
		name                      string
		publishes, deliveries, in []facts.Minute
		want, wantPublish         float64
		none                      bool
	}{
		// ho4-amqp-crash-progression-worker: every failed delivery kept by
		// the tail sampler and redelivered twice, the publishes as before.
		{name: "a crashing consumer's kept redeliveries", publishes: stepSeries(14, 14), deliveries: stepSeries(14, 350), in: stepSeries(14, 350), want: 1, wantPublish: 1},
		// ho4-trap-finale-surge-replay-indexer: five times the publishes,
		// the consumer at its capacity.
		{name: "a surge of publishes", publishes: stepSeries(6, 30), deliveries: stepSeries(6, 18), in: stepSeries(6, 18), want: 5, wantPublish: 5},
		// An HTTP route beside the queue counts as it is: its surge stays one.
		{name: "an HTTP route's surge beside a quiet queue", publishes: stepSeries(10, 10), deliveries: stepSeries(10, 10), in: stepSeries(14, 40), want: 40.0 / 14, wantPublish: 1},
		// Publishes to a destination shared with other consumers: this one
		// received a third of them in the baseline.
		{name: "a neighbour's exchange", publishes: stepSeries(30, 30), deliveries: stepSeries(10, 50), in: stepSeries(10, 50), none: true},
		// A batch producer: one span for many messages.
		{name: "a batch producer", publishes: stepSeries(2, 2), deliveries: stepSeries(10, 50), in: stepSeries(10, 50), none: true},
		{name: "too few publishes in the baseline", publishes: stepSeries(0.5, 0.5), deliveries: stepSeries(0.5, 5), in: stepSeries(0.5, 5), none: true},
		{name: "no deliveries in the baseline", publishes: stepSeries(10, 10), deliveries: stepSeries(0, 50), in: stepSeries(10, 50), none: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := facts.PublishedArrivals([]string{"q"}, tc.publishes, tc.deliveries, tc.in, on)
			if tc.none {
				require.Nil(t, got)
				return
			}
			require.NotNil(t, got)
			require.InDelta(t, tc.want, got.Ratio, 0.01)
			require.InDelta(t, tc.wantPublish, got.PublishRatio, 0.01)
			require.Equal(t, []string{"q"}, got.Destinations)
		})
	}
	require.Nil(t, facts.PublishedArrivals(nil, stepSeries(14, 14), stepSeries(14, 14), stepSeries(14, 14), facts.Onset{}), "no onset")
}
