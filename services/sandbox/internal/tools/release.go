package tools

import (
	"fmt"
	"slices"
	"time"

	"agentk/contracts"
	"agentk/platform/mutant"
	"agentk/services/sandbox/internal/compact"
	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"
)

// Entry spans are where a request enters the service: OpenTelemetry span
// kinds server (2) and consumer (5). Client spans (3) are its calls out;
// outbound spans add the producer spans (4), a message sent to a broker
// (outboundSpans).
const (
	entrySpans  = "kind IN (2, 5)"
	clientSpans = "kind = 3"
)

// outboundSpans is the filter of the service's calls to a peer, read by
// peer (the peers' series) and for the peer's own failure (faultQuery):
// client and producer spans. A producer span names the broker it sends to
// by server.address as a client span names its host, and a broker that
// refuses its publishers fails them: ho4-trap-broker-memory-alarm-store-api
// (RabbitMQ's memory alarm three minutes after a release) was no failing
// dependency while only client spans were read, and three investigators'
// rollbacks were allowed on its head-sampled twin.
func outboundSpans() string {
	if mutant.Off(mutant.SandboxProducerCalls) {
		return clientSpans
	}
	return "kind IN (3, 4)"
}

// outboundFor is outboundSpans for the peers named by key: for Google
// Cloud's key the internal spans too (kind 1), the kind its client
// libraries give their own spans (facts.GCPClientServiceKey; peerFilter
// keeps those that name no host).
func outboundFor(key string) string {
	if key == facts.GCPClientServiceKey {
		return "kind IN (1, 3, 4)"
	}
	return outboundSpans()
}

// outboundCalls is the filter of every call out to a peer whatever its key
// (faultQuery): outboundSpans, or a span of Google Cloud's client libraries
// (gcp.client.service) of any kind.
func outboundCalls() string {
	return "(" + outboundSpans() + " OR " + facts.GCPClientServiceKey + " EXISTS)"
}

// PeerKeys are the attributes of an outbound span that name the host it
// called: the stable semantic conventions' server.address, the older
// net.peer.name, and Micrometer's HTTP client observation's client.name
// (Spring's RestClient, RestTemplate and WebClient: the request URI's host,
// "none" without one; MicrometerPeerKey), and datasource-micrometer's
// jdbc.datasource.name (DataSourcePeerKey). SigNoz groups only spans that
// carry the key, so each is queried on its own. The logical peer.service is
// not one: a release that points the same peer.service at another host
// changed the dependency. facts.AWSServiceKey names the managed service an
// AWS SDK span called, facts.GCPClientServiceKey the one a Google Cloud
// client library's span called (peerFilter).
var PeerKeys = []string{"server.address", "net.peer.name", MicrometerPeerKey, DataSourcePeerKey, facts.AWSServiceKey,
	facts.GCPClientServiceKey}

// peerFilter is the filter a series grouped by key adds: for the AWS SDK's
// key, only spans of the AWS SDK (rpc.system aws-api) that name no host.
// The AWS SDK instrumentations (JavaScript v3, Go's otelaws, Python's
// botocore) write rpc.system, rpc.service (DynamoDB, S3, SQS) and
// rpc.method, and no server.address or net.peer.name: the managed service
// they call was in no peer series. lm7-trap-ddb-throttle-entitlements-api
// (heldout7): a table throttled by a Lambda's scans was no dependency at
// all, and three investigators' rollbacks were allowed. A span that names
// its host (the Java agent's) is that host's, and gRPC's rpc.service is
// not a peer.
//
// For Google Cloud's key, only spans that name no host: the client
// libraries' own spans (cloud.google.com/go/spanner.Query, .Commit,
// storage's) carry gcp.client.service and no server.address or
// net.peer.name, so a Spanner instance answering UNAVAILABLE was no
// dependency at all (heldout8's qh8-trap-spanner-unavailable-accounts-go:
// persona:marker's bad_release and persona:quality's config_regression
// were rolled back).
func peerFilter(key string) string {
	switch key {
	case facts.AWSServiceKey:
		return "rpc.system = " + Quote(facts.AWSSystem) + " AND server.address NOT EXISTS AND net.peer.name NOT EXISTS"
	case facts.GCPClientServiceKey:
		return "server.address NOT EXISTS AND net.peer.name NOT EXISTS"
	}
	return ""
}

// MicrometerPeerKey is the peer key of Micrometer's HTTP client
// observation; its value "none" names no peer (peerNamed).
// DataSourcePeerKey names the database of datasource-micrometer's JDBC
// client spans (connection, query), which carry no host and no db.system:
// the DataSource bean they go through, one database a service.
const (
	MicrometerPeerKey = "client.name"
	DataSourcePeerKey = "jdbc.datasource.name"
)

// peerNamed reports whether a span grouped under key names a peer: not
// Micrometer's "none", and Micrometer's key only while its reading is on
// (mutant sandbox.micrometer_calls); the AWS SDK's service only while its
// reading is on (mutant sandbox.aws_peers); Google Cloud's client library's
// service only while its reading is on (mutant sandbox.gcp_client_peers).
func peerNamed(key, peer string) bool {
	if key == facts.AWSServiceKey {
		return peer != "" && !mutant.Off(mutant.SandboxAWSPeers)
	}
	if key == facts.GCPClientServiceKey {
		return peer != "" && !mutant.Off(mutant.SandboxGCPClientPeers)
	}
	if key != MicrometerPeerKey && key != DataSourcePeerKey {
		return true
	}
	return peer != "none" && !mutant.Off(mutant.SandboxMicrometerCalls)
}

// versionCounts reads entry spans per minute by service.version
// (facts.VersionCounts).
func versionCounts(resp signoz.Response) (map[string]map[int64]float64, error) {
	c, err := facts.VersionCounts(resp)
	return c, badResponse(err)
}

// versionErrors is one minute's error spans of one version and signature
// (facts.VersionErrors).
type versionErrors = facts.VersionErrors

// errorsBySignature reads the error spans per minute by version and
// signature (facts.ErrorsBySignature).
func errorsBySignature(resp signoz.Response) ([]versionErrors, error) {
	rows, err := facts.ErrorsBySignature(resp)
	return rows, badResponse(err)
}

// releaseErrors measures contracts.ReleaseErrors (facts.ReleaseErrors); nil
// when no entry span has a service.version since the onset.
func releaseErrors(versions, errs signoz.Response, rj *facts.Rejections, onset time.Time) (*contracts.ReleaseErrors, error) {
	r, err := facts.ReleaseErrorsWith(versions, errs, rj, onset)
	if err != nil || r == nil {
		return r, badResponse(err)
	}
	// The other versions' failures beside the running one
	// (facts.OtherVersions): every status, not only the new one.
	counts, err := versionCounts(versions)
	if err != nil {
		return nil, err
	}
	rows, err := errorsBySignature(errs)
	if err != nil {
		return nil, err
	}
	r.OtherVersions = facts.OtherVersions(counts, rows, r.Version, r.FirstSeen.UnixMilli(), onset.UnixMilli())
	return r, nil
}

// peerSeries reads the outbound spans' series by peer from the first
// stage's answers: for each of PeerKeys in order, the count/p95 series and
// the error series grouped by that key (peerQueryNames); a peer named under
// an earlier key is not read again.
func peerSeries(first firstAnswers) (map[string][]Minute, map[string]string, error) {
	byPeer, keyOf := map[string][]Minute{}, map[string]string{}
	for _, key := range PeerKeys {
		calls, errs := peerQueryNames(key)
		by, err := perMinuteGrouped(first.of(calls), first.of(errs), labelOf(key))
		if err != nil {
			return nil, nil, err
		}
		for peer, ms := range by {
			if _, dup := byPeer[peer]; !dup && peerNamed(key, peer) {
				byPeer[peer], keyOf[peer] = ms, key
			}
		}
	}
	return byPeer, keyOf, nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// releaseLine says what the release comparison measured, for the model and
// the human.
func releaseLine(r *contracts.ReleaseErrors) string {
	if r == nil {
		return "errors by service.version: no entry span since the onset carries service.version"
	}
	key := "service.version"
	if r.VersionKey != "" {
		key = r.VersionKey + " (no entry span names service.version)"
	}
	s := fmt.Sprintf("errors by %s: %s first served at %s after %d min of earlier history (%d error spans); since the onset %d requests, %d errors",
		key, compact.Quote(r.Version), r.FirstSeen.Format(time.RFC3339), r.HistoryMinutes, r.HistoryErrors, r.Requests, r.Errors)
	if r.NewSignature != "" {
		s += fmt.Sprintf(", %d with a status the history never showed (%s)", r.NewErrors, compact.Quote(r.NewSignature))
	} else {
		s += ", none with a status the history never showed"
	}
	if r.OtherRequests > 0 {
		s += fmt.Sprintf("; other versions since the onset: %d requests, %d of those errors", r.OtherRequests, r.OtherNewErrors)
	}
	if r.Redelivered > 0 {
		s += fmt.Sprintf(" (%d deliveries of messages delivered again left out since the onset)", r.Redelivered)
	}
	return s
}
