package facts

import (
	"fmt"
	"math"
	"time"
)

// Sparse traffic (a few sampled requests a minute) hides a weak error
// regression from the margins: a release failing 5% of requests puts one
// error in a bucket of ten, never +5 points above the baseline three buckets
// running. The pooled test judges the whole stretch from a change point to
// the end of the data at once, by significance rather than a fixed margin.
const (
	// PooledErrorLR is the least likelihood-ratio statistic (2·ΔlogL) of
	// the best single split of the error series (binomial, both rates
	// estimated) for the stretch after it to count as a regression. It is
	// the maximum over every split, so higher than a single test's: 13.8
	// is p = 0.0002 for one split, about 0.05 over 250 of them.
	PooledErrorLR = 13.8
	// PooledMinErrors is the least errors the stretch after the split must
	// hold: one or two errors are no regression, however sparse the traffic.
	PooledMinErrors = 3
)

// Sums is the requests and the errors of ms.
func Sums(ms []Minute) (req, errs float64) {
	for _, x := range ms {
		req += x.Requests
		errs += x.Errors
	}
	return req, errs
}

// BestErrorSplit is the index s (minute s begins the higher stretch, at or
// before alertAt) of the split of ms with the largest binomial
// likelihood-ratio statistic 2·ΔlogL, and that statistic; s is -1 when no
// split has a higher error rate after it.
func BestErrorSplit(ms []Minute, alertAt time.Time) (int, float64) {
	totReq, totErr := Sums(ms)
	ll := func(e, n float64) float64 {
		if n == 0 || e == 0 || e == n {
			return 0
		}
		p := e / n
		return e*math.Log(p) + (n-e)*math.Log(1-p)
	}
	best, at := 0.0, -1
	var req, errs float64
	for s := 1; s < len(ms) && !ms[s].At.After(alertAt); s++ {
		req += ms[s-1].Requests
		errs += ms[s-1].Errors
		r2, e2 := totReq-req, totErr-errs
		if r2 == 0 || req == 0 || e2/r2 <= errs/req {
			continue
		}
		if v := 2 * (ll(errs, req) + ll(e2, r2) - ll(totErr, totReq)); v > best {
			best, at = v, s
		}
	}
	return at, best
}

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
	s, lr := BestErrorSplit(kept, o.alertAt)
	if s <= 0 || lr < PooledErrorLR {
		return Onset{}, false
	}
	base := baselineOf(o.backward(kept[s].At), o.m)
	if !base.enough(o.m) || !o.stillOff(kept[s:], base) {
		return Onset{}, false
	}
	at := maxTime(kept[s-1].At.Add(time.Minute), kept[s].At.Add(-o.width)).UTC()
	req, errs := Sums(kept[s:])
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
	req, errs := Sums(after)
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
