package contracts

// Subjects, one per message type and version. Each has exactly one producer.
const (
	// SubjectAlert carries AlertV1, produced by the ingester.
	SubjectAlert = "agentk.alert.v1"
	// SubjectToolCall carries ToolCallV1 requests from the investigator to the
	// sandbox (core NATS request/reply; the reply is a ToolReplyV1).
	SubjectToolCall = "agentk.tool.v1"
	// SubjectToolReply is the subject a ToolReplyV1 envelope is sealed for. It is
	// never published to directly: replies travel on the requester's inbox.
	SubjectToolReply = "agentk.tool.v1.reply"
	// SubjectEvidence carries EvidenceV1, produced by the sandbox.
	SubjectEvidence = "agentk.evidence.v1"
	// SubjectReport carries ReportV1, produced by the investigator.
	SubjectReport = "agentk.report.v1"
	// SubjectReview carries ReviewV1, produced by the reviewer.
	SubjectReview = "agentk.review.v1"
	// SubjectDecision carries DecisionV1, produced by the gate.
	SubjectDecision = "agentk.decision.v1"
	// SubjectApproval carries ApprovalV1, produced by the bridge.
	SubjectApproval = "agentk.approval.v1"
	// SubjectAction carries ActionV1, produced by the deployer.
	SubjectAction = "agentk.action.v1"
)

// AllSubjects lists every durable subject (tool calls are request/reply and not
// stored).
var AllSubjects = []string{
	SubjectAlert, SubjectEvidence, SubjectReport, SubjectReview,
	SubjectDecision, SubjectApproval, SubjectAction,
}
