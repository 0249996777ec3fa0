package facts

import (
	"fmt"
	"math"
	"slices"
	"time"

	"agentk/contracts"
	"agentk/platform/mutant"
)

// Departures per operation: a regression confined to one operation of
// several (a config release breaking one RPC, one route) is diluted in the
// service's aggregate series and may never leave its margins. Each
// operation's own series (span name × kind, http.route, rpc.method) is
// judged by FindOnset with the service's margins, and a departure counts
// only when it is significant after a Bonferroni correction for the number
// of series looked at: its binomial tail probability is at most
// OperationAlpha / N. The onset is the earliest of the service's own and
// every significant operation's (DESIGN rule 16: a signal may move the
// onset earlier, never later).
const (
	// OperationAlpha is the family-wise chance of an onset from noise over
	// every operation series of one overview.
	OperationAlpha = 0.001
	// MaxOperationSeries bounds the series of each grouping read.
	MaxOperationSeries = 50
)

// OpDeparture is one operation's significant departure.
type OpDeparture struct {
	op string
	on Onset
	p  float64
	// before and since are the signal's figures in the baseline and from the onset on.
	before, since float64
	// look is 2 when the wide look found it (judged at half the level).
	look int
}

// Op names the operation ("name KIND", "route <r>" or "rpc <m>").
func (d OpDeparture) Op() string { return d.op }

// Onset is the operation's own onset.
func (d OpDeparture) Onset() Onset { return d.on }

// OperationWideRequests is the sampled traffic a bucket holds in an
// operation's second look. With a background error rate of a few percent,
// a bucket of about 10 sampled requests cannot pass the per-bucket
// binomial test (Margins.BucketAlpha) however high the rise: at 6%
// background, 5 errors in 17 requests has a tail of 0.002, and three such
// buckets in a row must each pass. A config release failing 30% of one
// endpoint at 1-in-32 sampling (3 or 4 sampled requests a minute) then read
// "no sustained departure" though it failed every minute. An operation with
// no onset at the default margins is looked at once more over buckets of
// about OperationWideRequests sampled requests (up to 15 minutes), each test
// at half its level (the per-bucket one and the departure's significance):
// over both looks the family-wise chance of an onset from noise is at most
// 1.5 × OperationAlpha.
const OperationWideRequests = 30

// lookFactor is what a look's p-value is multiplied by: 2 for the second.
func lookFactor(look int) float64 {
	if look > 1 && mutant.Off(mutant.SandboxOperationWideLevel) {
		// The mutant: the second look judged by the margins alone (no
		// per-bucket test either, wideMargins).
		return 0
	}
	return float64(max(1, look))
}

// wideMargins are m for the second look: wider buckets, half the
// per-bucket level.
func wideMargins(m Margins) Margins {
	m.BucketRequests = OperationWideRequests
	m.BucketAlpha /= 2
	if mutant.Off(mutant.SandboxOperationWideLevel) {
		m.BucketAlpha = 0
	}
	return m
}

// OperationDepartures returns every operation whose series departs from its
// baseline, under way by the alert, significant at OperationAlpha / N for N
// the operations with enough baseline to be judged; earliest first.
func OperationDepartures(ops map[string][]Minute, filters map[string]string, alertAt time.Time, m Margins) []OpDeparture {
	return OperationDeparturesBy(ops, filters, nil, alertAt, m)
}

// OperationDeparturesBy is OperationDepartures with the versions' answers:
// an operation's error onset moves to where its new errors could begin
// (VersionPlaced) before its significance is judged.
func OperationDeparturesBy(ops map[string][]Minute, filters map[string]string, vs *OpVersions, alertAt time.Time, m Margins) []OpDeparture {
	var found []OpDeparture
	n := 0
	m.BucketAlpha = OperationBucketAlpha / float64(max(1, len(ops)))
	if mutant.Off(mutant.SandboxOperationBonferroni) {
		m.BucketAlpha = OperationBucketAlpha
	}
	wide := wideMargins(m)
	for _, op := range sortedKeys(ops) {
		on := FindOnset(ops[op], alertAt, m)
		if on.Short {
			continue
		}
		n++
		look := 1
		if on.At == nil {
			// A second look over wider buckets (wideMargins), judged at
			// half the levels.
			if on, look = FindOnset(ops[op], alertAt, wide), 2; on.Short {
				continue
			}
		}
		if on.At == nil || on.At.After(alertAt) {
			continue
		}
		on = splitPlaced(ops[op], on, alertAt)
		on = VersionPlaced(op, ops[op], on, vs, alertAt, m)
		d := OpDeparture{op: op, on: on, look: look}
		d.p, d.before, d.since = departureP(ops[op], on, alertAt)
		found = append(found, d)
	}
	var out []OpDeparture
	for _, d := range found {
		if significantAmong(d.p*lookFactor(d.look), n) {
			d.on.Operation, d.on.OpFilter = d.op, filters[d.op]
			out = append(out, d)
		}
	}
	slices.SortStableFunc(out, func(x, y OpDeparture) int { return x.on.At.Compare(*y.on.At) })
	return out
}

// splitPlaced moves an operation's onset to the best split of its series
// before the alert (splitPoint: the binomial likelihood ratio of errors, or
// the CUSUM of signs of the p95), right after the last minute before it,
// where that split is later than the onset: in a thin series (a few sampled
// requests a minute, no error in the baseline) one stray error per bucket
// holds the margins for three buckets ahead of the real rise, and the
// significance test over the whole run would not tell. The split never moves
// the service's onset later: EarliestOnset takes an operation's onset only
// where it is earlier than the aggregate's.
func splitPlaced(ms []Minute, on Onset, alertAt time.Time) Onset {
	var active []Minute
	for _, x := range ms {
		if x.Requests > 0 {
			active = append(active, x)
		}
	}
	s := SplitPoint(active, alertAt, on.Signal)
	if s <= 0 || !active[s].At.After(*on.At) || active[s].At.After(alertAt) || mutant.Off(mutant.SandboxOperationSplit) {
		return on
	}
	at := active[s-1].At.Add(time.Minute).UTC()
	if !at.After(*on.At) {
		return on
	}
	on.Reason += fmt.Sprintf("; placed at the best split of the operation's series, %s", at.Format(time.RFC3339))
	on.At = &at
	return on
}

// departureP is the p-value of what the series shows from the onset to the
// alert against its baseline, by the likelihood-ratio test of two binomial
// proportions (both estimated, so a short baseline that happened to be
// clean is no certainty): for an error departure, errors in sampled
// requests; for a latency departure, minutes with p95 at or above the
// threshold. With the figures before and since (error rates, or median p95).
func departureP(ms []Minute, on Onset, alertAt time.Time) (p, before, since float64) {
	var base, run []Minute
	for _, x := range ms {
		switch {
		case x.Requests <= 0:
		case x.At.Before(on.BaselineFrom):
		case x.At.Before(*on.At):
			base = append(base, x)
		case !x.At.After(alertAt):
			run = append(run, x)
		}
	}
	if on.Signal == "p95" {
		above := func(xs []Minute) (k, n float64) {
			for _, x := range xs {
				if !math.IsNaN(x.P95Ms) {
					n++
					if x.P95Ms >= on.P95ThresholdMs {
						k++
					}
				}
			}
			return k, n
		}
		k0, n0 := above(base)
		k, n := above(run)
		return riseP(k0, n0, k, n), MedianP95(base), MedianP95(run)
	}
	r0, e0 := Sums(base)
	r, e := Sums(run)
	if r > 0 {
		since = e / r
	}
	if r0 > 0 {
		before = e0 / r0
	}
	return riseP(e0, r0, e, r), before, since
}

// significantAmong reports whether a departure's p-value is significant
// among n operations looked at: p ≤ OperationAlpha / n (Bonferroni).
func significantAmong(p float64, n int) bool {
	if mutant.Off(mutant.SandboxOperationBonferroni) {
		return p <= OperationAlpha
	}
	return p <= OperationAlpha/float64(max(n, 1))
}

// OperationBucketAlpha is the family-wise chance, over the operations, of
// one bucket's errors being read as off by chance: each operation's buckets
// are judged at OperationBucketAlpha / N (Margins.BucketAlpha).
const OperationBucketAlpha = 0.01

// riseP is the one-sided p-value that the proportion k/n is higher than
// k0/n0 by chance: the binomial likelihood ratio statistic (2·ΔlogL,
// chi-square with one degree of freedom), 1 when it is not higher.
func riseP(k0, n0, k, n float64) float64 {
	if n0 <= 0 || n <= 0 || k/n <= k0/n0 {
		return 1
	}
	ll := func(e, n float64) float64 {
		if n == 0 || e == 0 || e == n {
			return 0
		}
		p := e / n
		return e*math.Log(p) + (n-e)*math.Log(1-p)
	}
	lr := 2 * (ll(k0, n0) + ll(k, n) - ll(k0+k, n0+n))
	if lr <= 0 {
		return 1
	}
	return math.Erfc(math.Sqrt(lr/2)) / 2
}

func MedianP95(xs []Minute) float64 {
	var p []float64
	for _, x := range xs {
		if !math.IsNaN(x.P95Ms) {
			p = append(p, x.P95Ms)
		}
	}
	if len(p) == 0 {
		return 0
	}
	return Median(p)
}

// EarliestOnset is the service's onset, or the earliest significant
// operation departure where that is earlier. A service onset that is
// unknown for a baseline too short stays unknown: an operation's later
// departure does not replace a regression already under way.
func EarliestOnset(svc Onset, deps []OpDeparture) Onset {
	// Only an operation's error departure places the onset: a thin
	// operation's p95 wanders past its margins on a few slow spans (no
	// per-bucket test holds it yet), and placed a world's onset before its
	// release (s18-w020); its p95 departures stay facts.
	i := slices.IndexFunc(deps, func(d OpDeparture) bool { return d.on.Signal == "error_rate" })
	if svc.Short || i < 0 || mutant.Off(mutant.SandboxOperationOnset) {
		return svc
	}
	first := deps[i].on
	if svc.At == nil || first.At.Before(*svc.At) {
		first.Reason = fmt.Sprintf("operation %s: %s (service aggregate: %s)", first.Operation, first.Reason, svc.Reason)
		return first
	}
	return svc
}

// DepartureFacts are the facts of the significant departures.
func DepartureFacts(deps []OpDeparture) []contracts.OperationDeparture {
	var out []contracts.OperationDeparture
	for _, d := range deps[:min(len(deps), 5)] {
		out = append(out, contracts.OperationDeparture{Operation: d.op, Signal: d.on.Signal, At: *d.on.At,
			Before: round(d.before), Since: round(d.since), P: d.p})
	}
	return out
}
