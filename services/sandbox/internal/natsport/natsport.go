// Package natsport connects the executor to the bus: tool calls arrive by
// request/reply on agentk.tool.v1 (queue group "sandbox"); evidence is
// stored in KV agentk_evidence under its digest (where reports and reviews
// refer to it) and published durably on agentk.evidence.v1 (the audit
// trail) before the reply goes out.
package natsport

import (
	"context"
	"fmt"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/bus"
	"agentk/platform/evidence"
	"agentk/services/sandbox/internal/executor"
)

// Queue is the queue group sandbox instances share.
const Queue = "sandbox"

// Recorder stores and publishes evidence.
type Recorder struct {
	Bus *bus.Conn
	// Store is KV agentk_evidence.
	Store evidence.Putter
}

// RecordEvidence stores env under its digest in Store, then publishes it on
// SubjectEvidence with Nats-Msg-Id msgID, and returns once JetStream stored
// both: a reference to it resolves from the moment the reply goes out.
func (r Recorder) RecordEvidence(ctx context.Context, env envelope.Envelope, msgID string) error {
	if _, err := evidence.Store(ctx, r.Store, msgID, env); err != nil {
		return fmt.Errorf("sandbox: store evidence %s: %w", msgID, err)
	}
	if err := r.Bus.Publish(ctx, contracts.SubjectEvidence, bus.Out{Envelope: env, MsgID: msgID}, nil); err != nil {
		return fmt.Errorf("sandbox: publish evidence %s: %w", msgID, err)
	}
	return nil
}

// Serve answers tool calls with ex until ctx ends; the returned stop
// unsubscribes and waits for calls in flight.
func Serve(ctx context.Context, b *bus.Conn, ex *executor.Executor) (stop func() error, err error) {
	return b.Serve(ctx, contracts.SubjectToolCall, Queue, traced(ex.HandleEnvelope))
}
