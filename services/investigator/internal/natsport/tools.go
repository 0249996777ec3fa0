// Package natsport connects the investigation loop to the bus: the durable
// alert handler that runs investigations and returns their signed reports,
// and the ToolCaller that asks the sandbox over NATS request/reply and
// verifies every reply and piece of evidence.
package natsport

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/bus"
	"agentk/services/investigator/internal/loop"
)

// Requester is the part of bus.Conn Tools needs.
type Requester interface {
	Request(ctx context.Context, subject string, env envelope.Envelope) (envelope.Envelope, error)
}

// Tools calls the sandbox. Its zero value is not usable.
type Tools struct {
	Bus     Requester
	Signer  *envelope.Signer
	Keyring *envelope.Keyring
	Now     func() time.Time
	// Timeout bounds one call (default 30 s).
	Timeout time.Duration
}

// Call implements loop.ToolCaller: it seals call for SubjectToolCall, waits for
// the sandbox-signed ToolReplyV1 and verifies the sandbox-signed evidence in it.
// Transport failures and unverifiable replies wrap loop.ErrToolUnavailable; a
// permanent refusal by the sandbox is a tool error the model can read.
func (t Tools) Call(ctx context.Context, call contracts.ToolCallV1) (loop.Reply, error) {
	env, err := t.Signer.SealJSON(contracts.SubjectToolCall, call, t.Now(), 0)
	if err != nil {
		return loop.Reply{}, fmt.Errorf("%w: seal %s: %w", loop.ErrToolUnavailable, call.CallID, err)
	}
	timeout := t.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	renv, err := t.Bus.Request(rctx, contracts.SubjectToolCall, env)
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return loop.Reply{}, ctx.Err()
	case bus.IsPermanent(err):
		return loop.Reply{OK: false, Error: "sandbox refused the call: " + err.Error()}, nil
	default:
		return loop.Reply{}, fmt.Errorf("%w: %s %s: %w", loop.ErrToolUnavailable, call.Tool, call.CallID, err)
	}
	now := t.Now()
	if err := t.Keyring.VerifyProduced(renv, contracts.SubjectToolReply, now); err != nil {
		return loop.Reply{}, fmt.Errorf("%w: reply to %s: %w", loop.ErrToolUnavailable, call.CallID, err)
	}
	var reply contracts.ToolReplyV1
	if err := json.Unmarshal(renv.Payload, &reply); err != nil {
		return loop.Reply{}, fmt.Errorf("%w: reply to %s: %w", loop.ErrToolUnavailable, call.CallID, err)
	}
	if reply.CallID != call.CallID {
		return loop.Reply{}, fmt.Errorf("%w: reply for %q to call %s", loop.ErrToolUnavailable, reply.CallID, call.CallID)
	}
	if !reply.OK {
		return loop.Reply{OK: false, Error: reply.Error, Retryable: reply.Retryable}, nil
	}
	var ev contracts.EvidenceV1
	eenv, err := t.Keyring.Open(reply.Evidence, contracts.SubjectEvidence, now, &ev)
	if err != nil {
		return loop.Reply{}, fmt.Errorf("%w: evidence of %s: %w", loop.ErrToolUnavailable, call.CallID, err)
	}
	return loop.Reply{OK: true, Evidence: ev, Envelope: reply.Evidence, Ref: contracts.RefTo(ev.ID, eenv)}, nil
}

var _ loop.ToolCaller = Tools{}
