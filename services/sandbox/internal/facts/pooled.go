package facts

import (
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
