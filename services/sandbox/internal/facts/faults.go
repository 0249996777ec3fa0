package facts

import (
	"slices"
	"strings"
	"time"

	"agentk/contracts"
	"agentk/platform/mutant"
	"agentk/services/sandbox/internal/signoz"
)

// FaultStatusKeys are the client-span attributes that carry the status the
// peer answered with, in the order they are read: OpenTelemetry's HTTP
// conventions (stable and older), gRPC's, and Micrometer's HTTP client
// observation (Spring's RestClient, RestTemplate and WebClient), whose
// status is the HTTP status as a string (MicrometerStatusKey).
var FaultStatusKeys = []string{"http.response.status_code", "http.status_code", "rpc.grpc.status_code", MicrometerStatusKey}

// MicrometerStatusKey and MicrometerOutcomeKey are the low-cardinality keys
// of Micrometer's HTTP client observation: the status ("503", or
// "CLIENT_ERROR" when no response came) and its class (SUCCESS,
// CLIENT_ERROR, SERVER_ERROR, UNKNOWN). Its spans name the peer by
// client.name (PeerKeys in tools), not server.address, and carry neither
// OpenTelemetry status: fh5-twin-clearing-outage-after-release-payments-gateway's
// clearing house answering 503 was no failing dependency while only the
// semantic conventions' keys were read, and three investigators' rollbacks
// were allowed.
const (
	MicrometerStatusKey  = "status"
	MicrometerOutcomeKey = "outcome"
)

// statusOf returns the status a failed outbound span carries under the
// first of FaultStatusKeys it holds as a number, and whether it is an HTTP
// status (else gRPC's); ok is false when it carries none. Micrometer's keys
// are read only on a span that has no OpenTelemetry status, and its status
// only as an HTTP status (100 to 599).
func statusOf(d map[string]any) (v float64, http, ok bool) {
	for _, k := range FaultStatusKeys {
		if k == MicrometerStatusKey && mutant.Off(mutant.SandboxMicrometerCalls) {
			continue
		}
		v, ok := signoz.ToFloat(AttrValue(d, k))
		if !ok || (k == MicrometerStatusKey && (v < 100 || v > 599)) {
			continue
		}
		return v, k != "rpc.grpc.status_code", true
	}
	return 0, false, false
}

// micrometerOutcome is the outcome of Micrometer's HTTP client observation
// on d ("" when the span has none, or the mutant is off).
func micrometerOutcome(d map[string]any) string {
	if mutant.Off(mutant.SandboxMicrometerCalls) {
		return ""
	}
	return strings.ToUpper(AttrString(d, MicrometerOutcomeKey))
}

// MinFaultCalls is the least number of failed calls to a peer, in the
// failing traces read, whose statuses DependencyFaults judges.
const MinFaultCalls = 3

// grpcFaults are the gRPC status codes by which a server says it failed or
// is out of capacity: UNAVAILABLE, RESOURCE_EXHAUSTED, INTERNAL and
// DATA_LOSS. UNAUTHENTICATED, PERMISSION_DENIED, INVALID_ARGUMENT,
// NOT_FOUND or FAILED_PRECONDITION say the request was refused as sent.
var grpcFaults = []int{14, 8, 13, 15}

// peerFault reports whether a failed outbound span's status is the peer's
// own failure: HTTP 5xx or 429, or one of grpcFaults (statusOf); Micrometer's
// outcome SERVER_ERROR without a status; a span with neither
// status (a message published to a broker, a Redis or SMTP command) when
// its error.type or status message says the peer failed (peerError).
func peerFault(d map[string]any) bool {
	if v, http, ok := statusOf(d); ok {
		if http {
			return v >= 500 || v == 429
		}
		return slices.Contains(grpcFaults, int(v))
	}
	if micrometerOutcome(d) == "SERVER_ERROR" {
		return true
	}
	return peerError(d)
}

// peerErrorWords are what error.type (semantic conventions 1.26+) or the
// status message of a failed outbound span without an HTTP or gRPC status
// says when the peer failed or is out of capacity: a connection it closed,
// reset or refused, its own unavailability, exhausted resources or
// throttling (RabbitMQ's memory alarm closing a publisher's connection,
// Redis's OOM or LOADING, a Kafka partition without a leader, SQS's
// ServiceUnavailable, Azure SQL's 40613 "Database '...' on server '...' is
// not currently available": kf6-twin-back-to-back-sql-outage-warehouse-api's
// outage at warehouse-api 4.0.1's release was rolled back on rules' and
// persona:quality's config_regression without it). Matched lower-cased, as
// substrings.
var peerErrorWords = []string{
	"connectionclosed", "connection closed", "closed connection", "connection reset", "connectionreset", "econnreset",
	"connection refused", "connectionrefused", "econnrefused", "cannotconnect", "broken pipe", "disconnected", "unexpectedly closed",
	"unavailable", "resource_exhausted", "resource exhausted", "resourceexhausted", "resource alarm", "connection.blocked",
	"out of memory", "oom command", "throttl", "too many requests", "overload", "busy", "loading the dataset", "masterdown", "clusterdown",
	"tryagain", "not_leader", "notleader", "leader not available", "leader_not_available", "leadernotavailable",
	"not_enough_replicas", "notenoughreplicas", "internal error", "internalerror", "internal server error",
	"not currently available",
}

// callerErrorWords say that the caller's own request or setup failed, not
// the peer: credentials and permissions, a request refused as sent, TLS
// (a configuration release's doing); they outweigh peerErrorWords.
var callerErrorWords = []string{
	"auth", "access_refused", "accessrefused", "access refused", "permission", "forbidden", "denied", "credential", "wrongpass",
	"invalid", "not found", "notfound", "not_found", "no such", "unknown", "argument", "malformed", "precondition", "too large",
	"ssl", "tls", "certificate", "handshake",
}

// peerError reports whether a failed outbound span with no HTTP or gRPC
// status says the peer failed (peerErrorWords in its error.type or status
// message), not that the caller gave up waiting (callerTimeout: the
// deadline is the caller's, which a release sets) or that its own request
// or setup was refused (callerErrorWords).
func peerError(d map[string]any) bool {
	if mutant.Off(mutant.SandboxPeerErrorType) || callerTimeout(d) {
		return false
	}
	if saysAny(d, callerErrorWords) {
		return false
	}
	return saysAny(d, peerErrorWords) || databaseThrottle(spanText(d))
}

// databaseThrottleWords are how a managed database's SDK says, in the
// status message or error.type of a span with no HTTP status, that the
// database throttled the call: Azure Cosmos DB's 429 ("Request rate is
// large. More Request Units may be needed", RequestRateTooLarge), which the
// Azure SDK's spans carry in db.cosmosdb.status_code, not an HTTP
// attribute. pr12-trap-cosmos-ru-regrade-grading-svc: another team's job
// used up the account's request units minutes after grading-svc's release,
// the SDK retried each throttled call inside its span (db.cosmosdb.retry_count)
// and five investigators' rollbacks were allowed while the 429s read as
// nothing. Matched lower-cased, as substrings of the text peerError reads.
var databaseThrottleWords = []string{"request rate is large", "requestratetoolarge", "request rate too large"}

// databaseThrottle reports whether text (lower-cased) says a managed
// database throttled the call (databaseThrottleWords).
func databaseThrottle(text string) bool {
	if mutant.Off(mutant.SandboxDatabaseThrottle) {
		return false
	}
	for _, w := range databaseThrottleWords {
		if strings.Contains(text, w) {
			return true
		}
	}
	return false
}

// DependencyFaults returns the peers among peers whose failed outbound spans
// (client and producer) of svc since the onset, in rows, number at least
// MinFaultCalls and more than half of them carry the peer's own failure
// (peerFault). A peer is named by keys in order (the span's
// server.address, then net.peer.name).
//
// A peer whose first failed calls (FaultOnsetWindow from its first since
// the onset) number at least MinFaultCalls and mostly carry its own failure
// is one too, whatever its later failures say (faultsAtOnset).
func DependencyFaults(rows []signoz.RawRow, svc string, onset time.Time, peers, keys []string) []string {
	out := judgeFaults(rows, svc, onset, peers, keys, peerFault)
	if mutant.Off(mutant.SandboxFaultsAtOnset) {
		return out
	}
	atOnset := faultsAtOnset(rows, svc, onset, peers, keys, withThrottles(rows, peerFault))
	var all []string
	for _, p := range peers {
		if slices.Contains(out, p) || slices.Contains(atOnset, p) {
			all = append(all, p)
		}
	}
	return all
}

// RetriedOwnFaults is DependencyFaults for the peers whose calls rose
// (RetriedPeers), where a failed call counts as the peer's own failure only
// when the caller did not give up on it: a client span whose error.type or
// status message says it timed out (context deadline exceeded, a 504 the
// client wrote itself) carries the caller's deadline, which a release sets
// (s1018-w028: fulfilment v38's cut timeout retried 5 to 9 times, each
// attempt "context deadline exceeded" with 504), not an answer of the peer.
func RetriedOwnFaults(rows []signoz.RawRow, svc string, onset time.Time, peers, keys []string) []string {
	return judgeFaults(rows, svc, onset, peers, keys, func(d map[string]any) bool {
		return peerFault(d) && !callerTimeout(d)
	})
}

// callerTimeout reports whether a failed client span says the caller gave
// up waiting: error.type or the status message names a timeout or a
// deadline.
func callerTimeout(d map[string]any) bool {
	return contracts.SaysGaveUpWaiting(AttrString(d, "error.type")) || contracts.SaysGaveUpWaiting(AttrString(d, "status_message"))
}

// judgeFaults counts, per peer of peers, the failed client spans of svc
// since the onset and those own says are the peer's own failure, and keeps
// the peers with at least MinFaultCalls of which more than half are.
func judgeFaults(rows []signoz.RawRow, svc string, onset time.Time, peers, keys []string, own func(map[string]any) bool) []string {
	calls, faults := countFailedCalls(rows, svc, onset, peers, keys, withThrottles(rows, own))
	var out []string
	for _, p := range peers {
		if calls[p] >= MinFaultCalls && 2*faults[p] > calls[p] {
			out = append(out, p)
		}
	}
	return out
}

// outboundKind reports whether a span row is a call out to a peer: a client
// span (OpenTelemetry span kind 3) or a producer span (4, a message sent to
// a broker, which names the broker by server.address as a client span names
// its host). A broker that refuses a publisher fails its producer spans:
// ho4-trap-broker-memory-alarm-store-api's RabbitMQ memory alarm failed
// every publish of store-api and was no failing dependency while only
// client spans were read.
//
// A span of Google Cloud's client libraries (gcp.client.service, no host)
// is a call out to the managed service whatever its kind: those libraries
// start their spans (cloud.google.com/go/spanner.Query, .Commit) with the
// default kind, internal (outboundCall).
func outboundKind(d map[string]any) bool {
	if gcpClientCall(d) {
		return true
	}
	switch k := AttrString(d, "kind_string"); k {
	case "Client", "SPAN_KIND_CLIENT", "3":
		return true
	case "Producer", "SPAN_KIND_PRODUCER", "4":
		return !mutant.Off(mutant.SandboxProducerCalls)
	case "":
		k = AttrString(d, "kind")
		return k == "3" || (k == "4" && !mutant.Off(mutant.SandboxProducerCalls))
	}
	return false
}

// WithinPeers keeps the faults that are among peers (the failing
// dependencies left after the downstream ones were set aside), in order.
func WithinPeers(faults, peers []string) []string {
	var out []string
	for _, f := range faults {
		if slices.Contains(peers, f) {
			out = append(out, f)
		}
	}
	return out
}

// countFailedCalls counts, per peer of peers, svc's failed outbound spans
// (outboundKind: client and producer) since the onset in rows (the peer
// named by the first of keys a span carries) and those of them that hit
// says yes to.
func countFailedCalls(rows []signoz.RawRow, svc string, onset time.Time, peers, keys []string, hit func(map[string]any) bool) (calls, hits map[string]int) {
	calls, hits = map[string]int{}, map[string]int{}
	for _, r := range rows {
		peer, ok := failedCall(r, svc, onset, keys)
		if !ok || !slices.Contains(peers, peer) {
			continue
		}
		calls[peer]++
		if hit(r.Data) {
			hits[peer]++
		}
	}
	return calls, hits
}

// failedCall returns the peer a row names when it is a failed outbound span
// of svc at or after onset.
func failedCall(r signoz.RawRow, svc string, onset time.Time, keys []string) (string, bool) {
	d := r.Data
	if ResourceValue(d, "service.name") != svc || RowTime(r).Before(onset) || !outboundKind(d) {
		return "", false
	}
	if !failed(d) {
		return "", false
	}
	return CallPeer(d, keys), true
}

// AWSServiceKey and AWSSystemKey are the AWS SDK instrumentations' span
// attributes that name the managed service called (DynamoDB, S3, SQS) and
// the SDK (AWSSystem); such a span names no host (tools.peerFilter).
const (
	AWSServiceKey = "rpc.service"
	AWSSystemKey  = "rpc.system"
	AWSSystem     = "aws-api"
)

// GCPClientServiceKey is the attribute Google Cloud's own client libraries
// (Go's cloud.google.com/go, Java's, Node's) write on the spans of their
// OpenTelemetry tracing: the managed service called (spanner, storage,
// bigtable), beside gcp.client.version, gcp.client.repo and
// gcp.client.artifact, and no host (tools.peerFilter).
const GCPClientServiceKey = "gcp.client.service"

// gcpClientCall reports whether a span row is a Google Cloud client
// library's call that names no host (its peer is its gcp.client.service),
// while that reading is on (mutant sandbox.gcp_client_peers).
func gcpClientCall(d map[string]any) bool {
	return AttrString(d, GCPClientServiceKey) != "" && AttrString(d, "server.address") == "" &&
		AttrString(d, "net.peer.name") == "" && !mutant.Off(mutant.SandboxGCPClientPeers)
}

// CallPeer is the peer a failed outbound span names: the first of keys it
// carries, the AWS SDK's rpc.service only on a span of the AWS SDK (gRPC's
// rpc.service names a service, not the host called).
func CallPeer(d map[string]any, keys []string) string {
	for _, k := range keys {
		if k == AWSServiceKey && AttrString(d, AWSSystemKey) != AWSSystem {
			continue
		}
		if peer := AttrString(d, k); peer != "" {
			return peer
		}
	}
	return ""
}
