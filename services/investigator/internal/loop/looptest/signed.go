package looptest

import (
	"context"
	"encoding/json"
	"time"

	"agentk/contracts"
	"agentk/contracts/envelope"
)

// SignedReply answers a tool call as the real sandbox does: the evidence
// sealed by the sandbox's signer for SubjectEvidence inside a ToolReplyV1.
func (s *Sandbox) SignedReply(ctx context.Context, signer *envelope.Signer, now time.Time, call contracts.ToolCallV1) (contracts.ToolReplyV1, error) {
	r, err := s.Call(ctx, call)
	if err != nil {
		return contracts.ToolReplyV1{}, err
	}
	reply := contracts.ToolReplyV1{CallID: call.CallID, OK: r.OK, Error: r.Error, Retryable: r.Retryable}
	if r.OK {
		env, err := signer.SealJSON(contracts.SubjectEvidence, r.Evidence, now, 0)
		if err != nil {
			return contracts.ToolReplyV1{}, err
		}
		reply.Evidence = json.RawMessage(env.Marshal())
	}
	return reply, nil
}
