package tools

import (
	"time"

	"agentk/services/sandbox/internal/facts"
)

// Sparse traffic (a few sampled requests a minute) hides a weak error
// regression from the margins: a release failing 5% of requests puts one
// error in a bucket of ten, never +5 points above the baseline three buckets
// running. The pooled test judges the whole stretch from a change point to
// the end of the data at once, by significance rather than a fixed margin.
const (
	// PooledErrorLR is the least likelihood-ratio statistic of the best
	// split (facts.PooledErrorLR).
	PooledErrorLR = facts.PooledErrorLR
	// PooledMinErrors is the least errors the stretch after the split must
	// hold (facts.PooledMinErrors).
	PooledMinErrors = facts.PooledMinErrors
)

// sums is the requests and the errors of ms (facts.Sums).
func sums(ms []Minute) (req, errs float64) { return facts.Sums(ms) }

// bestErrorSplit is the split of ms with the largest binomial
// likelihood-ratio statistic, and that statistic (facts.BestErrorSplit).
func bestErrorSplit(ms []Minute, alertAt time.Time) (int, float64) {
	return facts.BestErrorSplit(ms, alertAt)
}
