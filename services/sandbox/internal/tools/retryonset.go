package tools

import (
	"time"

	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"
)

// withRetryOnset is on, or the retries' onset where that is earlier (or on
// found none; facts.RetryOnset, facts.EarliestWithRetries): each retry
// source's retries (the sample's retry attributes, attrs in
// retryAttrQueries order; the retry log lines, logs) per inbound request
// (roots, versions and attempts: inboundMinutes' answers) a minute.
func withRetryOnset(on Onset, keys []string, attrs []signoz.Response, logs, roots, versions signoz.Response, arrivals facts.EntryArrivals, alertAt time.Time) (Onset, error) {
	if on.Short {
		return on, nil
	}
	inbound, err := inboundMinutes(roots, versions, arrivals, time.Time{}, alertAt)
	if err != nil {
		return on, err
	}
	series, err := facts.RetrySeries(keys, attrs, logs, inbound)
	if err != nil {
		return on, badResponse(err)
	}
	ro, ok := facts.RetryOnset(series, alertAt, DefaultMargins)
	return facts.EarliestWithRetries(on, ro, ok), nil
}

// onsetMarks are the onset bucket's spans judged by the onset's signal
// (facts.OnsetMarks; facts.RetryMarks for a retries onset).
func onsetMarks(on Onset, rows []signoz.RawRow) []facts.SpanMark {
	if on.Signal == "retries" {
		return facts.RetryMarks(on, rows)
	}
	return facts.OnsetMarks(on, rows)
}
