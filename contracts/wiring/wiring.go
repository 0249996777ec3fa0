// Package wiring is the one declaration of the agentk fabric: every subject
// with its producers and consumers, every KV bucket with its readers and
// writers, and the roles between them. Everything else is derived from these
// tables: the envelope keyring's "who may sign what" and Keyring.Open's
// expected producer, platform/topology's streams and NATS grants (and through
// them the embedded and compose server configurations), the audit, the replay
// observer and the live demo.
//
// It imports nothing, so that package envelope (which package contracts
// imports) can read it. contracts, envelope and platform/topology re-export
// its names; use those.
package wiring

import "slices"

// Roles: one per service. A key belongs to exactly one role.
const (
	RoleIngester     = "ingester"
	RoleSandbox      = "sandbox"
	RoleInvestigator = "investigator"
	RoleReviewer     = "reviewer"
	RoleGate         = "gate"
	RoleBridge       = "bridge"
	RoleDeployer     = "deployer"
)

// Roles lists every role, in pipeline order.
var Roles = []string{RoleIngester, RoleSandbox, RoleInvestigator, RoleReviewer, RoleGate, RoleBridge, RoleDeployer}

// StartOrder lists every role in the order a process that runs them
// together starts them: the pipeline backwards (consumers before producers,
// so nothing published at start waits for its consumer), except that the
// sandbox, which serves the investigator's tool calls over core NATS
// request/reply (no stream holds a request for a server not yet there),
// starts before the investigator. The deployer asks the sandbox only after a
// rollback, long after start. The cycle through the ingester (it consumes
// decisions) is why this is a list and not a sort of the subject table.
var StartOrder = []string{RoleDeployer, RoleBridge, RoleGate, RoleReviewer, RoleSandbox, RoleInvestigator, RoleIngester}

// Subjects, one per message type and version.
const (
	SubjectAlert     = "agentk.alert.v1"
	SubjectToolCall  = "agentk.tool.v1"
	SubjectToolReply = "agentk.tool.v1.reply"
	SubjectEvidence  = "agentk.evidence.v1"
	SubjectReport    = "agentk.report.v1"
	SubjectReview    = "agentk.review.v1"
	SubjectDecision  = "agentk.decision.v1"
	SubjectApproval  = "agentk.approval.v1"
	SubjectAction    = "agentk.action.v1"
	SubjectLedger    = "agentk.ledger.v1"
	SubjectCooldown  = "agentk.cooldown.v1"
	SubjectFreeze    = "agentk.freeze.v1"
)

// KV buckets.
const (
	BucketIncidents = "agentk_incidents"
	BucketReleases  = "agentk_releases"
	BucketCooldown  = "agentk_cooldown"
	BucketNonces    = "agentk_nonces"
	BucketReports   = "agentk_reports"
	BucketDecisions = "agentk_decisions"
	BucketFreezes   = "agentk_freezes"
	BucketSpent     = "agentk_spent"
	BucketLeases    = "agentk_leases"
	BucketEvidence  = "agentk_evidence"
)

// Kind says how a subject travels.
type Kind int

const (
	// Durable subjects are stored in their own JetStream stream.
	Durable Kind = iota + 1
	// Request subjects are core NATS request/reply; Consumers serve them.
	Request
	// Reply subjects are what a reply envelope is sealed for; replies travel
	// on the requester's inbox and are never published to directly.
	Reply
	// Value subjects are what a signed KV value is sealed for.
	Value
)

// Subject is one row of the subject table.
type Subject struct {
	Name string
	Kind Kind
	// Stream is the JetStream stream of a durable subject.
	Stream string
	// Producers are the roles that may sign it. Every subject but the tool
	// call has exactly one.
	Producers []string
	// Consumers are the roles with a durable consumer on a durable subject's
	// stream, or the roles that serve a request subject.
	Consumers []string
}

// Subjects is the subject table, durable subjects first, in pipeline order.
var Subjects = []Subject{
	{Name: SubjectAlert, Kind: Durable, Stream: "AGENTK_ALERTS", Producers: []string{RoleIngester}, Consumers: []string{RoleInvestigator}},
	{Name: SubjectEvidence, Kind: Durable, Stream: "AGENTK_EVIDENCE", Producers: []string{RoleSandbox}},
	{Name: SubjectReport, Kind: Durable, Stream: "AGENTK_REPORTS", Producers: []string{RoleInvestigator}, Consumers: []string{RoleReviewer}},
	{Name: SubjectReview, Kind: Durable, Stream: "AGENTK_REVIEWS", Producers: []string{RoleReviewer}, Consumers: []string{RoleGate}},
	// The ingester consumes decisions to release the decided incident's
	// investigation slot.
	{Name: SubjectDecision, Kind: Durable, Stream: "AGENTK_DECISIONS", Producers: []string{RoleGate}, Consumers: []string{RoleIngester, RoleReviewer, RoleBridge}},
	{Name: SubjectApproval, Kind: Durable, Stream: "AGENTK_APPROVALS", Producers: []string{RoleBridge}, Consumers: []string{RoleReviewer, RoleDeployer}},
	{Name: SubjectAction, Kind: Durable, Stream: "AGENTK_ACTIONS", Producers: []string{RoleDeployer}, Consumers: []string{RoleReviewer, RoleBridge}},
	// The deployer calls a tool only for its recovery check: the sandbox
	// accepts a deployer-signed call for service_overview of the alert's own
	// service and nothing else.
	{Name: SubjectToolCall, Kind: Request, Producers: []string{RoleInvestigator, RoleDeployer}, Consumers: []string{RoleSandbox}},
	{Name: SubjectToolReply, Kind: Reply, Producers: []string{RoleSandbox}},
	{Name: SubjectLedger, Kind: Value, Producers: []string{RoleDeployer}},
	{Name: SubjectCooldown, Kind: Value, Producers: []string{RoleDeployer}},
	{Name: SubjectFreeze, Kind: Value, Producers: []string{RoleBridge}},
}

// Bucket is one row of the KV bucket table.
type Bucket struct {
	Name string
	// Writers may write (and so read) the bucket; Readers only read it.
	Writers, Readers []string
	// History is how many revisions per key it keeps; 0 is the provisioned
	// default.
	History int
	// Expires is true when a key lives only as long as the streams keep
	// their messages (the provisioned MaxAge, 30 days by default): the key
	// serves messages of that age and no older. False keeps keys until they
	// are deleted.
	Expires bool
}

// Buckets is the KV bucket table.
var Buckets = []Bucket{
	// The bridge reads an incident's resolve time to show the approver (who
	// must re-confirm once the alert resolved); the deployer reads it because
	// an approval is void once the alert resolved.
	{Name: BucketIncidents, Writers: []string{RoleIngester}, Readers: []string{RoleBridge, RoleDeployer}},
	{Name: BucketReleases, Writers: []string{RoleDeployer}, Readers: []string{RoleGate}},
	{Name: BucketCooldown, Writers: []string{RoleDeployer}, Readers: []string{RoleGate}},
	{Name: BucketNonces, Writers: []string{RoleDeployer}},
	{Name: BucketReports, Writers: []string{RoleReviewer}, Readers: []string{RoleBridge}},
	{Name: BucketDecisions, Writers: []string{RoleBridge}},
	// Bridge-signed FreezeV1 values, key = service or the global key. Its
	// history is the freezes' audit trail, so it keeps the most NATS allows.
	{Name: BucketFreezes, Writers: []string{RoleBridge}, Readers: []string{RoleGate, RoleDeployer}, History: 64},
	// One key per decision a deployer consumed (key = decision id, created
	// once, never updated): a decision pays for at most one action, whatever
	// the approvals, across restarts.
	{Name: BucketSpent, Writers: []string{RoleDeployer}},
	// One key per role that runs active-standby (key = role): the deployer
	// replica holding it is the one that consumes approvals; the others
	// stand by and take it over once it is no longer renewed.
	{Name: BucketLeases, Writers: []string{RoleDeployer}},
	// Every sandbox-signed evidence envelope (EvidenceV1), key = the hex
	// sha256 of its payload, written once before the tool reply: reports and
	// reviews name evidence by {id, digest} (contracts.EvidenceRef) instead of
	// carrying it, and the reviewer and the gate fetch, verify and cache it.
	// Content-addressed, so one revision is all a key ever has. A key is
	// read only for a report or review still on its stream, so it expires
	// with the streams' messages: the bucket does not grow without bound.
	{Name: BucketEvidence, Writers: []string{RoleSandbox}, Readers: []string{RoleReviewer, RoleGate}, History: 1, Expires: true},
}

// DLQStream is the stream that holds dead-lettered messages; every consumer
// may dead-letter what it consumes.
const DLQStream = "AGENTK_DLQ"

// DLQBrowsers may read the dead letters message by message (stream info and
// message get) without consuming them: the bridge's console lists them.
var DLQBrowsers = []string{RoleBridge}

// Lookup returns the row of subject, ok false when there is none.
func Lookup(subject string) (Subject, bool) {
	i := slices.IndexFunc(Subjects, func(s Subject) bool { return s.Name == subject })
	if i < 0 {
		return Subject{}, false
	}
	return Subjects[i], true
}

// Producer returns the first producer of subject ("" for an unknown subject):
// the one producer of every subject but the tool call.
func Producer(subject string) string {
	s, ok := Lookup(subject)
	if !ok || len(s.Producers) == 0 {
		return ""
	}
	return s.Producers[0]
}

// Produces reports whether role is a producer of subject.
func Produces(role, subject string) bool {
	s, ok := Lookup(subject)
	return ok && slices.Contains(s.Producers, role)
}

// SignedBy returns the subjects role produces, in table order.
func SignedBy(role string) []string {
	var out []string
	for _, s := range Subjects {
		if slices.Contains(s.Producers, role) {
			out = append(out, s.Name)
		}
	}
	return out
}

// Durables returns the durable subjects, in table order.
func Durables() []string {
	var out []string
	for _, s := range Subjects {
		if s.Kind == Durable {
			out = append(out, s.Name)
		}
	}
	return out
}
