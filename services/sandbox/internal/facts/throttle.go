package facts

import (
	"slices"
	"strings"

	"agentk/platform/mutant"
	"agentk/services/sandbox/internal/signoz"
)

// throttleWords are what a throttled call's error.type or status message
// says: the generic "throttl" (ThrottlingException, "request throttled")
// and AWS's documented answers whose HTTP status is 400, not 429:
// ProvisionedThroughputExceededException ("The level of configured
// provisioned throughput for the table was exceeded"), ThrottlingException
// ("Rate of requests exceeds the allowed throughput") and
// RequestLimitExceeded ("Throughput exceeds the current throughput limit
// for your account"). Matched lower-cased, as substrings.
var throttleWords = []string{"throttl", "provisionedthroughput", "provisioned throughput", "allowed throughput",
	"throughput limit", "requestlimitexceeded"}

// spanText is a span's error.type and status message, lower-cased: what
// the word lists (throttleWords, peerErrorWords, databaseAuthRefusalWords,
// ...) are matched against, as substrings.
func spanText(d map[string]any) string {
	return strings.ToLower(AttrString(d, "error.type") + " " + AttrString(d, "status_message"))
}

// saysAny reports whether spanText(d) holds any of words.
func saysAny(d map[string]any, words []string) bool {
	text := spanText(d)
	return slices.ContainsFunc(words, func(w string) bool { return strings.Contains(text, w) })
}

// saysThrottled reports whether a span's error.type or status message says
// the peer throttled the call.
func saysThrottled(d map[string]any) bool {
	return saysAny(d, throttleWords)
}

// withThrottles returns own, widened to a failed call answered with an
// HTTP 4xx that it, or the failed outbound span it was sent under, says
// was throttled: the peer refusing a call for its own capacity, as a 429
// does (peerFault). An SDK that retries inside its own span has the
// transport's span for each attempt under it: the node http
// instrumentation's spans under the AWS SDK's `DynamoDB.GetItem` carry
// the host and the 400, the SDK's span the throttling exception and no
// host. lm7-twin-http-ddb-throttle-after-rollout-entitlements-api
// (heldout7): DynamoDB's 400s were the caller's refused requests, the
// SDK's unchanged three attempts a release's retry storm, and five
// investigators' rollbacks were allowed. A 4xx that says nothing of
// throttling stays the caller's (its credentials, its request).
func withThrottles(rows []signoz.RawRow, own func(map[string]any) bool) func(map[string]any) bool {
	if mutant.Off(mutant.SandboxThrottledCalls) {
		return own
	}
	byID := map[string]map[string]any{}
	for _, r := range rows {
		if id := AttrString(r.Data, "span_id"); id != "" {
			byID[id] = r.Data
		}
	}
	return func(d map[string]any) bool {
		if own(d) {
			return true
		}
		if v, http, ok := statusOf(d); !ok || !http || v < 400 || v >= 500 {
			return false
		}
		if saysThrottled(d) {
			return true
		}
		p := byID[AttrString(d, "parent_span_id")]
		return p != nil && outboundKind(p) && failed(p) && saysThrottled(p)
	}
}
