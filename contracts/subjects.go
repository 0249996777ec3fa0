package contracts

import "agentk/contracts/wiring"

// Subjects, one per message type and version, as declared in the wiring
// table (which names their producers and consumers). Each has exactly one
// producer but the tool call.
const (
	// SubjectAlert carries AlertV1, produced by the ingester.
	SubjectAlert = wiring.SubjectAlert
	// SubjectToolCall carries ToolCallV1 requests from the investigator to the
	// sandbox (core NATS request/reply; the reply is a ToolReplyV1).
	SubjectToolCall = wiring.SubjectToolCall
	// SubjectToolReply is the subject a ToolReplyV1 envelope is sealed for. It is
	// never published to directly: replies travel on the requester's inbox.
	SubjectToolReply = wiring.SubjectToolReply
	// SubjectEvidence carries EvidenceV1, produced by the sandbox.
	SubjectEvidence = wiring.SubjectEvidence
	// SubjectReport carries ReportV1, produced by the investigator.
	SubjectReport = wiring.SubjectReport
	// SubjectReview carries ReviewV1, produced by the reviewer.
	SubjectReview = wiring.SubjectReview
	// SubjectDecision carries DecisionV1, produced by the gate.
	SubjectDecision = wiring.SubjectDecision
	// SubjectApproval carries ApprovalV1, produced by the bridge.
	SubjectApproval = wiring.SubjectApproval
	// SubjectAction carries ActionV1, produced by the deployer.
	SubjectAction = wiring.SubjectAction
)

// AllSubjects lists every durable subject (tool calls are request/reply and not
// stored).
var AllSubjects = wiring.Durables()
