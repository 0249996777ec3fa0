package tools

import (
	"fmt"
	"math"
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

// pooled finds the onset of an error regression too sparse for the margins:
// the split of the series (less the departures that recovered) that best
// divides it into a lower error rate and a higher one, where the higher
// stretch begins by the alert, holds PooledMinErrors errors, is at least
// ErrorRateFactor times its baseline's rate in each of its halves (it is
// still under way, not an earlier burst that recovered) and the split is
// significant (PooledErrorLR). The baseline before it is the robust one of
// FindOnset and must hold the minimum. ok is false when there is no such
// split, and the caller goes on as without it.
func (o *onsetSearch) pooled() (Onset, bool) {
	var kept []Minute
	for j, x := range o.active {
		if !o.excluded[j] {
			kept = append(kept, x)
		}
	}
	s, lr := bestErrorSplit(kept, o.alertAt)
	if s <= 0 || lr < PooledErrorLR {
		return Onset{}, false
	}
	base := baselineOf(o.backward(kept[s].At), o.m)
	if !base.enough(o.m) || !o.stillOff(kept[s:], base) {
		return Onset{}, false
	}
	at := maxTime(kept[s-1].At.Add(time.Minute), kept[s].At.Add(-o.width)).UTC()
	req, errs := sums(kept[s:])
	return Onset{
		At: &at, Signal: "error_rate", Pooled: true, BaselineErrorRate: base.errRate, BaselineP95Ms: nanZero(base.p95),
		ErrorThreshold: base.errThr, P95ThresholdMs: infZero(base.p95Thr),
		BaselineFrom: base.from, BaselineMinutes: base.minutes, BaselineRequests: base.requests, BucketMinutes: o.w,
		Reason: fmt.Sprintf("error_rate rose at %s: %s errors in %s sampled requests from there on, the baseline error rate %s, 2·ΔlogL %s (pooled: no departure of %d-min buckets under way by the alert began earlier; baseline %d min, %s sampled requests)",
			at.Format(time.RFC3339), fmtF(errs), fmtF(req), fmtF(round(base.errRate)), fmtF(round(lr)), o.w, base.minutes, fmtF(base.requests)),
	}, true
}

// stillOff reports whether the stretch after the split holds the least
// errors and, in each half by sampled requests, an error rate at least
// ErrorRateFactor times the baseline's.
func (o *onsetSearch) stillOff(after []Minute, base baseline) bool {
	req, errs := sums(after)
	if errs < PooledMinErrors {
		return false
	}
	floor := math.Max(base.errRate, 0.5/base.requests) * o.m.ErrorRateFactor
	var r1, e1 float64
	for _, x := range after {
		if r1 >= req/2 {
			break
		}
		r1 += x.Requests
		e1 += x.Errors
	}
	r2, e2 := req-r1, errs-e1
	return r1 > 0 && r2 > 0 && e1/r1 >= floor && e2/r2 >= floor
}

// sums is the requests and the errors of ms (facts.Sums).
func sums(ms []Minute) (req, errs float64) { return facts.Sums(factMinutes(ms)) }

// bestErrorSplit is the split of ms with the largest binomial
// likelihood-ratio statistic, and that statistic (facts.BestErrorSplit).
func bestErrorSplit(ms []Minute, alertAt time.Time) (int, float64) {
	return facts.BestErrorSplit(factMinutes(ms), alertAt)
}
