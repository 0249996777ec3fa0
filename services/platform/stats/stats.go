// Package stats holds the small pieces of statistics that more than one
// service tests its facts with, so that the sandbox, which computes a fact,
// and the gate, which judges it, compute a tail the same way.
package stats

import "math"

// BinomTail is P(X ≥ k) for X ~ Binomial(n, q). The sum stops once its terms
// past the mean no longer move it (relative 1e-12).
func BinomTail(k, n int, q float64) float64 {
	switch {
	case k <= 0:
		return 1
	case k > n, q <= 0:
		return 0
	case q >= 1:
		return 1
	}
	lf := func(x int) float64 { v, _ := math.Lgamma(float64(x) + 1); return v }
	var sum float64
	for i := k; i <= n; i++ {
		t := math.Exp(lf(n) - lf(i) - lf(n-i) + float64(i)*math.Log(q) + float64(n-i)*math.Log1p(-q))
		sum += t
		if t < sum*1e-12 && float64(i) > float64(n)*q {
			break
		}
	}
	return math.Min(sum, 1)
}
