package facts

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"agentk/platform/mutant"
	"agentk/services/sandbox/internal/signoz"
)

// Retries as an onset signal (INCIDENT-FORMAT: the onset is the first minute
// the service left its baseline on any signal that shows the regression,
// "retries" among them). A client that retries inside one span (an LLM SDK
// whose timeout is now shorter than its answers) moves neither the errors
// nor, reliably, the p95: only its retries rise. Each retry source RetryRise
// reads (each retry attribute's sum, the retry log lines) is a series of
// retries per inbound request per minute, judged as an operation's error
// series is: FindOnset with the operations' margins and per-bucket test, then
// the departure's significance (departureP) at RetryOnsetAlpha / N for N the
// series judged (Bonferroni). The earliest significant departure joins the
// earliest of the other signals (EarliestWithRetries): it may move the onset
// earlier, or give one where none was found, never later.

// RetryOnsetAlpha is the family-wise chance of an onset from noise over
// every retry series of one overview.
const RetryOnsetAlpha = OperationAlpha

// RetrySeries are the retry sources' series (attrs: one per key, in tools'
// retryAttrQueries order; logs: retryLogQuery's, named "retry log lines"),
// each minute's Requests the inbound requests (roots) and Errors its
// retries, at most one a request: the share stays a proportion the
// binomial tests can judge, and a storm of several retries a request
// still reads as every request retried. An attribute counting attempts
// (the first is 1) then reads about 1 in its baseline and cannot depart:
// it never places an onset.
func RetrySeries(keys []string, attrs []signoz.Response, logs signoz.Response, roots []Minute) (map[string][]Minute, error) {
	names := append(append([]string(nil), keys[:min(len(keys), len(attrs))]...), "retry log lines")
	resps := append(append([]signoz.Response(nil), attrs[:min(len(attrs), len(keys))]...), logs)
	out := map[string][]Minute{}
	for i, r := range resps {
		if r.Refused != "" {
			continue
		}
		byTs := map[int64]float64{}
		err := Samples(r, func(signoz.Series) string { return "all" }, func(_ string, _ int, ts int64, v float64) { byTs[ts] += v })
		if err != nil {
			return nil, err
		}
		ms := make([]Minute, 0, len(roots))
		for _, x := range roots {
			ms = append(ms, Minute{At: x.At, Requests: x.Requests, Errors: math.Min(math.Max(byTs[x.At.UnixMilli()], 0), x.Requests), P95Ms: math.NaN()})
		}
		out[names[i]] = ms
	}
	return out, nil
}

// RetryOnset is the earliest significant departure of the retry series
// (RetrySeries) under way by the alert, with the source that placed it in
// QualityKey ("retry log lines" for the logs); ok is false when none
// departed significantly.
func RetryOnset(series map[string][]Minute, alertAt time.Time, m Margins) (Onset, bool) {
	m.BucketAlpha = OperationBucketAlpha / float64(max(1, len(series)))
	if mutant.Off(mutant.SandboxRetryOnsetBonferroni) {
		m.BucketAlpha = 0
	}
	type found struct {
		on Onset
		p  float64
	}
	var cands []found
	n := 0
	for _, src := range sortedKeys(series) {
		on := FindOnset(series[src], alertAt, m)
		if on.Short {
			continue
		}
		n++
		if on.At == nil || on.At.After(alertAt) || on.Signal != "error_rate" {
			continue
		}
		// A bucket of several minutes starts where it may hold none of
		// the rise: the best split of the series, where later, places it
		// (as an operation's, splitPlaced).
		on = splitPlaced(series[src], on, alertAt)
		p, before, since := departureP(series[src], on, alertAt)
		on.Signal, on.QualityKey = "retries", src
		on.Pooled = false
		on.Reason = fmt.Sprintf("retries per inbound request of %s rose at %s: %s before, %s since (at most one a request), p %s; %s",
			src, on.At.UTC().Format(time.RFC3339), fmtF(round(before)), fmtF(round(since)), fmtF(p), strings.Replace(on.Reason, "error_rate", "their share", 1))
		cands = append(cands, found{on, p})
	}
	var best Onset
	ok := false
	for _, c := range cands {
		if c.p > RetryOnsetAlpha/float64(max(1, n)) && !mutant.Off(mutant.SandboxRetryOnsetBonferroni) {
			continue
		}
		if !ok || c.on.At.Before(*best.At) {
			best, ok = c.on, true
		}
	}
	return best, ok
}

// EarliestWithRetries is on, or the retries' onset (RetryOnset) where that
// is earlier or on found none: a new signal may move the onset earlier,
// never later. An onset unknown for a short baseline stays unknown. The
// retries' onset keeps on's thresholds where on has a baseline (the other
// facts measure the service against them).
func EarliestWithRetries(on Onset, ro Onset, ok bool) Onset {
	if on.Short || !ok || ro.At == nil || ro.BaselineMinutes < DefaultMargins.MinBaselineMinutes {
		return on
	}
	if on.At != nil && !ro.At.Before(*on.At) && !mutant.Off(mutant.SandboxRetryOnset) {
		return on
	}
	out := ro
	if on.At != nil || on.BaselineMinutes > 0 {
		out.BaselineErrorRate, out.BaselineP95Ms, out.ErrorThreshold, out.P95ThresholdMs = on.BaselineErrorRate, on.BaselineP95Ms, on.ErrorThreshold, on.P95ThresholdMs
	}
	was := "the other signals found none"
	if on.At != nil {
		was = "the other signals' onset " + on.At.UTC().Format(time.RFC3339)
	}
	out.Reason = fmt.Sprintf("%s (%s)", ro.Reason, was)
	return out
}

// RetryMarks are the onset bucket's spans for a retries onset: a span is
// off when its retry attribute (on.QualityKey) counts a retry (above 0 for
// a count of retries, above 1 for a count of attempts); a span without the
// attribute says nothing either way. A logs onset has no span to judge: no
// marks, and RefineOnset keeps the bucket's start.
func RetryMarks(on Onset, rows []signoz.RawRow) []SpanMark {
	var out []SpanMark
	attempts := retryAttemptKey(on.QualityKey)
	for _, r := range rows {
		at := RowTime(r)
		v, ok := signoz.ToFloat(AttrValue(r.Data, on.QualityKey))
		if at.IsZero() || !ok {
			continue
		}
		off := v > 0
		if attempts {
			off = v > 1
		}
		ops := OpKeys(AttrString(r.Data, "name"), AttrString(r.Data, "kind_string"), AttrString(r.Data, "http.route"), AttrString(r.Data, "rpc.method"))
		out = append(out, SpanMark{At: at, Off: off, Ops: ops})
	}
	slices.SortStableFunc(out, func(a, b SpanMark) int { return a.At.Compare(b.At) })
	return out
}

// retryAttemptKey reports whether an attribute counts attempts (the first
// is 1: "attempt", "attempts") rather than retries or previous attempts
// (the first is 0).
func retryAttemptKey(k string) bool {
	l := strings.ToLower(k)
	return strings.Contains(l, "attempt") && !strings.Contains(l, "previous") && !strings.Contains(l, "retr")
}
