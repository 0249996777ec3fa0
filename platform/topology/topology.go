// Package topology is the one description of the agentk fabric: which streams
// hold which subjects, which KV buckets exist, and what each role may publish
// and subscribe. The embedded server, the compose server configuration and the
// provisioning code all read it, so they cannot disagree.
package topology

import (
	"fmt"
	"strings"

	"agentk/contracts"
)

// DLQStream is the stream that holds dead-lettered messages.
const DLQStream = "AGENTK_DLQ"

// DLQPrefix prefixes the original subject of a dead-lettered message.
const DLQPrefix = "agentk.dlq."

// Stream is one JetStream stream and the subject it stores.
type Stream struct {
	Name    string
	Subject string
}

// Streams lists one stream per durable subject in contracts.AllSubjects.
var Streams = []Stream{
	{Name: "AGENTK_ALERTS", Subject: contracts.SubjectAlert},
	{Name: "AGENTK_EVIDENCE", Subject: contracts.SubjectEvidence},
	{Name: "AGENTK_REPORTS", Subject: contracts.SubjectReport},
	{Name: "AGENTK_REVIEWS", Subject: contracts.SubjectReview},
	{Name: "AGENTK_DECISIONS", Subject: contracts.SubjectDecision},
	{Name: "AGENTK_APPROVALS", Subject: contracts.SubjectApproval},
	{Name: "AGENTK_ACTIONS", Subject: contracts.SubjectAction},
}

// StreamFor returns the name of the stream that stores subject: a durable
// subject's own stream, or DLQStream for agentk.dlq.<subject>. ok is false for
// any other subject.
func StreamFor(subject string) (name string, ok bool) {
	if strings.HasPrefix(subject, DLQPrefix) {
		return DLQStream, true
	}
	for _, s := range Streams {
		if s.Subject == subject {
			return s.Name, true
		}
	}
	return "", false
}

// DLQSubject returns the dead-letter subject for subject.
func DLQSubject(subject string) string { return DLQPrefix + subject }

// KV buckets of docs/architecture.md.
const (
	BucketIncidents = "agentk_incidents"
	BucketReleases  = "agentk_releases"
	BucketCooldown  = "agentk_cooldown"
	BucketNonces    = "agentk_nonces"
	BucketReports   = "agentk_reports"
	BucketDecisions = "agentk_decisions"
	// BucketFreezes holds bridge-signed FreezeV1 values, key = service or
	// contracts.FreezeGlobal. Its history is the freezes' audit trail.
	BucketFreezes = "agentk_freezes"
	// BucketSpent holds one key per decision a deployer consumed (key =
	// decision id, created once, never updated): a decision pays for at most
	// one action, whatever the approvals, across restarts.
	BucketSpent = "agentk_spent"
)

// Buckets lists every KV bucket.
var Buckets = []string{BucketIncidents, BucketReleases, BucketCooldown, BucketNonces, BucketReports, BucketDecisions, BucketFreezes, BucketSpent}

// BucketHistory returns how many revisions per key bucket keeps: the
// provisioned default, except the freezes bucket, which keeps the most
// NATS allows (64) because every set and lift is audited.
func BucketHistory(bucket string, def int) int {
	if bucket == BucketFreezes {
		return 64
	}
	return def
}

// RoleAdmin is the provisioning identity. It is not an envelope role: it signs
// nothing and only creates streams and buckets.
const RoleAdmin = "admin"

// InboxPrefix is the reply-inbox prefix of role's connections. Each role may
// subscribe only to its own inboxes, so no service can read another's replies.
func InboxPrefix(role string) string { return "_INBOX_" + role }

// checkName reports whether s is usable as a subject token for a role or
// durable consumer name.
func checkName(s string) error {
	if s == "" || strings.ContainsAny(s, ".*> \t\r\n") {
		return fmt.Errorf("topology: %q is not a valid name", s)
	}
	return nil
}
