// Package topology is the one description of the agentk fabric: which streams
// hold which subjects, which KV buckets exist, and what each role may publish
// and subscribe. The embedded server, the compose server configuration and the
// provisioning code all read it, so they cannot disagree.
package topology

import (
	"fmt"
	"slices"
	"strings"

	"agentk/contracts/wiring"
)

// DLQStream is the stream that holds dead-lettered messages.
const DLQStream = wiring.DLQStream

// DLQPrefix prefixes the original subject of a dead-lettered message.
const DLQPrefix = "agentk.dlq."

// Stream is one JetStream stream and the subject it stores.
type Stream struct {
	Name    string
	Subject string
}

// Streams lists one stream per durable subject of the wiring table, in its
// order.
var Streams = streams()

func streams() []Stream {
	var out []Stream
	for _, s := range wiring.Subjects {
		if s.Kind == wiring.Durable {
			out = append(out, Stream{Name: s.Stream, Subject: s.Name})
		}
	}
	return out
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

// KV buckets of docs/architecture.md, declared in the wiring table.
const (
	BucketIncidents = wiring.BucketIncidents
	BucketReleases  = wiring.BucketReleases
	BucketCooldown  = wiring.BucketCooldown
	BucketNonces    = wiring.BucketNonces
	BucketReports   = wiring.BucketReports
	BucketDecisions = wiring.BucketDecisions
	// BucketFreezes holds bridge-signed FreezeV1 values, key = service or
	// contracts.FreezeGlobal. Its history is the freezes' audit trail.
	BucketFreezes = wiring.BucketFreezes
	// BucketSpent holds one key per decision a deployer consumed.
	BucketSpent = wiring.BucketSpent
	// BucketLeases holds the deployer's leader lease, key = the role.
	BucketLeases = wiring.BucketLeases
	// BucketEvidence holds every sandbox-signed evidence envelope, key = the
	// hex sha256 of its payload.
	BucketEvidence = wiring.BucketEvidence
)

// Buckets lists every KV bucket, in the wiring table's order.
var Buckets = buckets()

func buckets() []string {
	out := make([]string, 0, len(wiring.Buckets))
	for _, b := range wiring.Buckets {
		out = append(out, b.Name)
	}
	return out
}

// BucketHistory returns how many revisions per key bucket keeps: the wiring
// table's figure (the freezes bucket keeps the most NATS allows, 64, because
// every set and lift is audited), else the provisioned default def.
func BucketHistory(bucket string, def int) int {
	if b := bucketRow(bucket); b.History > 0 {
		return b.History
	}
	return def
}

// BucketExpires reports whether bucket's keys expire with the streams'
// messages (the wiring table's Expires).
func BucketExpires(bucket string) bool { return bucketRow(bucket).Expires }

// bucketRow is bucket's row of the wiring table, the zero row when it has none.
func bucketRow(bucket string) wiring.Bucket {
	i := slices.IndexFunc(wiring.Buckets, func(b wiring.Bucket) bool { return b.Name == bucket })
	if i < 0 {
		return wiring.Bucket{}
	}
	return wiring.Buckets[i]
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
