package tools

import (
	"fmt"
	"regexp"
	"slices"

	"agentk/contracts"
	"agentk/services/sandbox/internal/compact"
	"agentk/services/sandbox/internal/signoz"
)

// The retries' planning: which attributes count retries, the queries of
// their series and of the retry log lines, and the rendered line. The rise
// they show is computed in package facts (facts/retries.go).

// RetryAttributes are span attributes that count a span's retries or
// attempts as OpenTelemetry's semantic conventions name them; any other
// numeric attribute of the service's spans whose name matches
// RetryAttributePattern counts too (retry_count, llm.retries,
// app.attempt, resilience4j.retry.attempts, …). The overview learns which
// the service carries from its span sample (qualitySampleQuery) and reads
// each in the follow-up stage.
var RetryAttributes = []string{"http.request.resend_count", "rpc.grpc.previous_rpc_attempts"}

// RetryAttributePattern matches attribute names that count retries or attempts.
var RetryAttributePattern = regexp.MustCompile(`(?i)(retr(y|ies|ied)|attempt|resend)`)

// MaxRetryAttributes bounds the retry attributes read.
const MaxRetryAttributes = 6

// RetryVocabulary matches the retry log lines of common clients: the
// OpenAI and Anthropic Python SDKs and httpx ("Retrying request to
// /chat/completions in 0.8 seconds"), Go's retryablehttp ("[DEBUG] POST
// http://… : retrying in 1s (2 left)"), gRPC's retry ("grpc-previous-rpc-attempts"),
// resilience4j ("Retry 'backend' recorded a failed retry attempt. Number of
// retry attempts: '2'"), tenacity, urllib3 ("Retrying (Retry(total=2…"),
// Polly and others ("retry attempt 3", "attempt 2 of 5"). RE2, no backslash
// (see PressureVocabulary).
const RetryVocabulary = `(?i)(retrying|retried|retry attempt|retry #|retry [0-9]+/|attempt [0-9]+ (of|/)|previous.rpc.attempts|failed retry|will retry|retry in [0-9])`

const qRetryLogs = "per_minute_retry_logs"

// retryLogQuery is the per-minute count of the service's retry log lines
// (first stage).
func retryLogQuery(svc string, from, to int64) Query {
	return Query{Name: qRetryLogs, Optional: true, Request: signoz.NewRequest(signoz.RequestTimeSeries, from, to, signoz.BuilderQuery{Name: "A", Signal: signoz.SignalLogs,
		StepInterval: 60, Filter: signoz.Filter{Expression: and(svc, "body REGEXP "+Quote(RetryVocabulary))}, Aggregations: []signoz.Aggregation{{Expression: "count()"}}, Limit: 1})}
}

// retryAttrQueries are the follow-up stage's per-minute sums of the retry
// attributes the sample showed.
func retryAttrQueries(svc string, ow Window, keys []string) []Query {
	var qs []Query
	for _, k := range keys {
		qs = append(qs, Query{Name: "per_minute_retry_attr_" + k, Optional: true, Request: signoz.NewRequest(signoz.RequestTimeSeries, ow.From.UnixMilli(), ow.To.UnixMilli(), signoz.BuilderQuery{Name: "A", Signal: signoz.SignalTraces,
			StepInterval: 60, Filter: signoz.Filter{Expression: and(svc, notMarker)}, Aggregations: []signoz.Aggregation{{Expression: "sum(" + k + ")"}}, Limit: 1})})
	}
	return qs
}

// retryPeerQueries are the follow-up stage's per-minute sums of each retry
// attribute over the service's client spans, grouped by each of PeerKeys:
// the attempts beyond the first that each peer received.
func retryPeerQueries(svc string, ow Window, keys []string) []Query {
	var qs []Query
	for _, k := range foldedRetryKeys(keys) {
		for _, p := range PeerKeys {
			qs = append(qs, Query{Name: "per_minute_retry_peer_" + k + "_" + p, Optional: true, Request: signoz.NewRequest(signoz.RequestTimeSeries, ow.From.UnixMilli(), ow.To.UnixMilli(), signoz.BuilderQuery{Name: "A", Signal: signoz.SignalTraces,
				StepInterval: 60, Filter: signoz.Filter{Expression: and(svc, clientSpans, peerFilter(p))}, Aggregations: []signoz.Aggregation{{Expression: "sum(" + k + ")"}},
				GroupBy: []signoz.FieldKey{{Name: p, FieldContext: "attribute", FieldDataType: "string"}}, Limit: 50})})
		}
	}
	return qs
}

// stageTwoCount is how many queries the follow-up stage sends for the
// sample's quality keys and retry attributes.
func stageTwoCount(keys []qualityKey, retry []string) int {
	return len(keys) + len(retry) + len(foldedRetryKeys(retry))*len(PeerKeys)
}

// foldedRetryKeys are the retry attributes that count a call's retries on
// one span. RetryAttributes (http.request.resend_count,
// rpc.grpc.previous_rpc_attempts) are, by their semantic conventions, the
// ordinal of the attempt on a span of its own: the spans already count the
// attempts, and adding their ordinals would count them twice.
func foldedRetryKeys(keys []string) []string {
	var out []string
	for _, k := range keys {
		if !slices.Contains(RetryAttributes, k) {
			out = append(out, k)
		}
	}
	return out
}

// isRetryAttribute reports whether k names a count of retries or attempts.
func isRetryAttribute(k string) bool {
	return slices.Contains(RetryAttributes, k) || matchesRetryPattern(k)
}

// retryLine says what the retry count measured.
func retryLine(r *contracts.RetryRise) string {
	return fmt.Sprintf("retries per inbound request since the onset vs baseline (%s %s): %s vs %s, %sx (%d retries since the onset)",
		r.Source, compact.Quote(r.Key), fmtF(r.Since), fmtF(r.Baseline), fmtF(r.Ratio), r.Events)
}
