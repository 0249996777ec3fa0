package tools_test

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOverviewCountsBatchMessages: heldout11's dispatch-worker is an SQS
// batch consumer (one CONSUMER span per batch, messaging.batch.message_count).
// A dead-letter queue's redrive fills every batch two minutes after a
// release: its sampled invocations rose 1.5x, its messages 5.3x, and the
// overview's inbound traffic is the messages (a surge, the gate denies);
// the release whose failures left the batches as they were keeps its
// inbound traffic flat.
func TestOverviewCountsBatchMessages(t *testing.T) {
	t.Parallel()
	redrive := editedOverview(t, "incidents-heldout11/lb11-trap-dlq-redrive-dispatch-worker", asRecorded)
	require.NotNil(t, redrive.Facts.TrafficRatio, redrive.Compact)
	require.GreaterOrEqual(t, *redrive.Facts.TrafficRatio, 2.5, redrive.Compact)

	release := editedOverview(t, "incidents-heldout11/lb11-keyerror-batch-dispatch-worker", asRecorded)
	require.NotNil(t, release.Facts.TrafficRatio, release.Compact)
	require.Less(t, *release.Facts.TrafficRatio, 1.5, release.Compact)
}
