package tools

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"time"

	"agentk/contracts"
	"agentk/platform/mutant"
	"agentk/services/sandbox/internal/compact"
	"agentk/services/sandbox/internal/signoz"
)

// Retries in every form: a retry storm is retries per inbound request rising
// against the baseline. Client spans per peer count the retries of a client
// that makes one span per attempt (PeakCallRatio); a client that retries
// inside one span shows them instead as an attribute counting the attempts
// or retries of that span, or as log lines of its SDK. The overview counts
// each of these per minute and reports the source whose retries per inbound
// request rose most since the onset.

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

// Retry-rise minimums: a source counts only with MinRetryEvents retries
// since the onset and MinRetryInbound sampled inbound requests on each side.
const (
	MinRetryEvents  = 5
	MinRetryInbound = 10
)

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
				StepInterval: 60, Filter: signoz.Filter{Expression: and(svc, clientSpans)}, Aggregations: []signoz.Aggregation{{Expression: "sum(" + k + ")"}},
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

// addRetryAttempts adds to each peer's calls per minute the retries its
// client spans counted (resps: retryPeerQueries' answers, in order): a
// retried call is as many calls as attempts, whether the client wrote one
// span per attempt or one span with a retry count. A peer named under an
// earlier key is counted once (peerSeries' rule).
func addRetryAttempts(byPeer map[string][]Minute, resps []signoz.Response) error {
	if mutant.Off(mutant.SandboxRetryAttempts) {
		return nil
	}
	seen := map[string]int{}
	for i, r := range resps {
		if r.Refused != "" {
			continue
		}
		key := PeerKeys[i%len(PeerKeys)]
		err := samples(r, labelOf(key), func(peer string, _ int, ts int64, v float64) {
			if first, ok := seen[peer]; ok && first != i%len(PeerKeys) {
				return
			}
			seen[peer] = i % len(PeerKeys)
			ms := byPeer[peer]
			for j := range ms {
				if ms[j].At.UnixMilli() == ts {
					ms[j].Requests += v
					return
				}
			}
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// isRetryAttribute reports whether k names a count of retries or attempts.
func isRetryAttribute(k string) bool {
	return slices.Contains(RetryAttributes, k) || matchesRetryPattern(k)
}

// retryRise reads the retry series (attrs: one per key, in retryAttrQueries
// order; logs: retryLogQuery's) and the inbound requests per minute
// (roots), and returns the source whose retries
// per inbound request rose most from the onset's baseline to the onset on;
// nil when no source holds the minimums. An attribute counting attempts
// (the first is 1) sums to about the requests in the baseline and rises as
// the attempts do: the ratio reads it as it reads a count of retries. A
// baseline with no retry counts as half of one (a rise from none is finite).
func retryRise(keys []string, attrs []signoz.Response, logs signoz.Response, roots []Minute, on Onset) (*contracts.RetryRise, error) {
	resps := append(slices.Clone(attrs[:min(len(attrs), len(keys))]), logs)
	inBase, inSince := splitSum(roots, on, func(m Minute) float64 { return m.Requests })
	if inBase < MinRetryInbound || inSince < MinRetryInbound {
		return nil, nil
	}
	var best *contracts.RetryRise
	for i, r := range resps {
		if r.Refused != "" {
			continue
		}
		var base, since float64
		err := samples(r, func(signoz.Series) string { return "all" }, func(_ string, _ int, ts int64, v float64) {
			at := time.UnixMilli(ts)
			switch {
			case at.Before(on.BaselineFrom):
			case at.Before(*on.At):
				base += v
			default:
				since += v
			}
		})
		if err != nil {
			return nil, err
		}
		attr := i < len(resps)-1
		if since < MinRetryEvents || (attr && mutant.Off(mutant.SandboxRetryAttributes)) {
			continue
		}
		source, key := "attribute", ""
		if attr {
			key = keys[i]
		} else {
			source, key = "logs", "retry log lines"
		}
		perBase := math.Max(base, 0.5) / inBase
		perSince := since / inSince
		rise := &contracts.RetryRise{Source: source, Key: key, Since: round(perSince), Baseline: round(base / inBase), Events: int64(math.Round(since)), Ratio: round(perSince / perBase)}
		if best == nil || rise.Ratio > best.Ratio {
			best = rise
		}
	}
	return best, nil
}

// splitSum sums f over the minutes of the onset's baseline and from the onset on.
func splitSum(ms []Minute, on Onset, f func(Minute) float64) (base, since float64) {
	for _, m := range ms {
		switch {
		case m.At.Before(on.BaselineFrom):
		case m.At.Before(*on.At):
			base += f(m)
		default:
			since += f(m)
		}
	}
	return base, since
}

// retryLine says what the retry count measured.
func retryLine(r *contracts.RetryRise) string {
	return fmt.Sprintf("retries per inbound request since the onset vs baseline (%s %s): %s vs %s, %sx (%d retries since the onset)",
		r.Source, compact.Quote(r.Key), fmtF(r.Since), fmtF(r.Baseline), fmtF(r.Ratio), r.Events)
}
