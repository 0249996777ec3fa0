package facts

import (
	"math"
	"time"

	"agentk/platform/mutant"
	"agentk/platform/stats"
)

// A shift that began a few minutes before the data ends (the alert fires
// soon after a prompt release, the recording stops 30 s to 3 min later) has
// fewer than QualityMinMinutes minutes after it. The asymptotic thresholds
// (t², 2·ΔlogL against χ² with one degree of freedom) do not hold there: a
// Welch t over three minutes has about two degrees of freedom, and
// t² ≥ 13.8 happens by chance one time in fifteen. Such a short tail (3 or
// 4 minutes after the split) counts only by an exact test, at the level
// QualityShortAlpha / (2·N) for N the series looked at (Bonferroni over
// the series and the two splits a series offers):
//
//   - a numeric attribute's mean: the Mann–Whitney rank test of the k
//     minutes after the split against the QualityRankWindow minutes before
//     it, its p-value counted exactly (rankTail): were they exchangeable (no
//     shift), it holds whatever the distribution of the minutes, heavy
//     tails included; a local window keeps a slow daily drift from passing
//     for a shift;
//   - a value's share: the binomial tail of the count after the split under
//     the share before (at least half a span over the spans before).
//
// The other conditions of a shift (its size, its halves on the new side)
// hold as for any split. Where the main search's best split leaves fewer
// than QualityExactBelow minutes on one side (the series' first minutes),
// it must also pass Student's t at the Welch–Satterthwaite degrees of
// freedom (exactHolds).

// QualityShortAlpha is the family-wise chance of a short-tail shift from
// noise over every series of one overview.
const QualityShortAlpha = 0.01

// QualityRankWindow is how many minutes before a short tail's split its
// rank test compares the tail with.
const QualityRankWindow = 60

// QualityMinAfterMinutes is the least minutes with a value after a split
// judged by the exact small-sample test.
const QualityMinAfterMinutes = 3

// shortTailAlpha is the level of a short-tail test for the threshold thr =
// QualitySplitLR + 2·ln N of judgeQuality: QualityShortAlpha / (2·N).
func shortTailAlpha(thr float64) float64 {
	n := math.Exp(math.Max(0, thr-QualitySplitLR) / 2)
	return QualityShortAlpha / (2 * n)
}

// QualityExactBelow is the number of points on the shorter side of a split
// below which a numeric split is also held to the exact Student t test
// (splitTail): the asymptotic t² threshold overstates the evidence of a
// handful of minutes at either end of the series.
const QualityExactBelow = 10

// splitTail is the Student t tail of the difference of the means of a and
// b at the Welch–Satterthwaite degrees of freedom, the variance of a side
// with fewer than QualityExactBelow points taken as no less than the
// other's.
func splitTail(a, b []Minute) (p, t2 float64) {
	ma, va := meanVar(a)
	mb, vb := meanVar(b)
	if len(b) < QualityExactBelow {
		vb = math.Max(vb, va)
	}
	if len(a) < QualityExactBelow {
		va = math.Max(va, vb)
	}
	qa, qb := va/float64(len(a)), vb/float64(len(b))
	se := qa + qb
	if se <= 0 {
		return 1, 0
	}
	t2 = (ma - mb) * (ma - mb) / se
	return studentTail(t2, se*se/(qa*qa/float64(len(a)-1)+qb*qb/float64(len(b)-1))), t2
}

// exactHolds reports whether a numeric split found by the asymptotic t²
// also passes Student's t where one side is short, at the level the
// threshold thr stands for (P(χ²₁ ≥ thr)).
func exactHolds(a, b []Minute, thr float64) bool {
	if min(len(a), len(b)) >= QualityExactBelow {
		return true
	}
	p, _ := splitTail(a, b)
	return p <= math.Erfc(math.Sqrt(thr/2))
}

// shortTailNumeric is the split of pts with QualityMinAfterMinutes to
// QualityMinMinutes−1 points after it whose rank test (rankTail) is
// smallest and at most shortTailAlpha(thr), and its Welch t²; -1 when none
// is.
func shortTailNumeric(pts []Minute, alertAt time.Time, thr float64) (int, float64) {
	alpha := shortTailAlpha(thr)
	best, at, t2at := math.Inf(1), -1, 0.0
	for s := max(QualityMinMinutes, len(pts)-QualityMinMinutes+1); s <= len(pts)-QualityMinAfterMinutes && !pts[s].At.After(alertAt); s++ {
		p := rankTail(pts[max(0, s-QualityRankWindow):s], pts[s:])
		if mutant.Off(mutant.SandboxQualityShortTail) {
			// The mutant: the asymptotic tail of t² on a short tail.
			p = math.Erfc(math.Sqrt(welchT2(pts[:s], pts[s:])/2)) / 2
		}
		if p <= alpha && p < best {
			best, at, t2at = p, s, welchT2(pts[:s], pts[s:])
		}
	}
	return at, t2at
}

// rankTail is the exact one-sided p-value of the Mann–Whitney test of
// after against before in the direction after's mean moved: the chance,
// were they exchangeable, of U (the pairs of an after and a before minute
// with the after one beyond, strictly: ties count against the shift) at
// least as large as observed. The count of k-subsets of the n+k ranks by
// rank sum is exact (a small table: k is at most QualityMinMinutes−1).
func rankTail(before, after []Minute) float64 {
	up := meanOf(after) > meanOf(before)
	u := 0
	for _, a := range after {
		for _, b := range before {
			if (up && a.P95Ms > b.P95Ms) || (!up && a.P95Ms < b.P95Ms) {
				u++
			}
		}
	}
	k, n := len(after), len(before)
	// ways[c][s]: subsets of size c of the ranks seen so far with sum s.
	maxSum := k * (n + k)
	ways := make([][]float64, k+1)
	for c := range ways {
		ways[c] = make([]float64, maxSum+1)
	}
	ways[0][0] = 1
	for r := 1; r <= n+k; r++ {
		for c := min(k, r); c >= 1; c-- {
			for s := maxSum; s >= r; s-- {
				ways[c][s] += ways[c-1][s-r]
			}
		}
	}
	// U = rank sum − k(k+1)/2.
	var tail float64
	for s := u + k*(k+1)/2; s <= maxSum; s++ {
		tail += ways[k][s]
	}
	return tail / math.Exp(lchoose(n+k, k))
}

func lchoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// shortTailShare reports whether a value's share after a split with
// minutes (fewer than QualityMinMinutes) minutes after it passes the
// binomial tail test: e1 or more of r1 spans under the share before,
// e0 of r0 (at least half a span of r0), at most shortTailAlpha(thr).
func shortTailShare(minutes int, r0, e0, r1, e1, thr float64) bool {
	if minutes < QualityMinAfterMinutes || r0 <= 0 {
		return false
	}
	if mutant.Off(mutant.SandboxQualityShortTail) {
		return true
	}
	p0 := math.Min(1, math.Max(e0, 0.5)/r0)
	return stats.BinomTail(int(math.Round(e1)), int(math.Round(r1)), p0) <= shortTailAlpha(thr)
}

func meanVar(ms []Minute) (float64, float64) {
	mu := meanOf(ms)
	var ss float64
	for _, x := range ms {
		ss += (x.P95Ms - mu) * (x.P95Ms - mu)
	}
	return mu, ss / float64(max(1, len(ms)-1))
}

// studentTail is P(|T| ≥ √t2) for T Student's t with df degrees of
// freedom: the regularized incomplete beta I_{df/(df+t2)}(df/2, 1/2).
func studentTail(t2, df float64) float64 {
	if t2 <= 0 {
		return 1
	}
	if df <= 0 || math.IsNaN(df) {
		return 1
	}
	return incBeta(df/2, 0.5, df/(df+t2))
}

// incBeta is the regularized incomplete beta function I_x(a, b), by its
// continued fraction (modified Lentz).
func incBeta(a, b, x float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	la, _ := math.Lgamma(a + b)
	lb, _ := math.Lgamma(a)
	lc, _ := math.Lgamma(b)
	front := math.Exp(la - lb - lc + a*math.Log(x) + b*math.Log1p(-x))
	if x > (a+1)/(a+b+2) {
		return 1 - incBeta(b, a, 1-x)
	}
	const tiny = 1e-300
	f, c, d := 1.0, 1.0, 0.0
	for i := 0; i <= 300; i++ {
		m := float64(i / 2)
		var num float64
		switch {
		case i == 0:
			num = 1
		case i%2 == 0:
			num = m * (b - m) * x / ((a + 2*m - 1) * (a + 2*m))
		default:
			num = -(a + m) * (a + b + m) * x / ((a + 2*m) * (a + 2*m + 1))
		}
		d = 1 + num*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		d = 1 / d
		c = 1 + num/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		cd := c * d
		f *= cd
		if math.Abs(1-cd) < 1e-12 {
			break
		}
	}
	return front * (f - 1) / a
}
