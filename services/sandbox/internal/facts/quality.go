package facts

import (
	"fmt"
	"math"
	"slices"
	"time"

	"agentk/contracts"
	"agentk/platform/mutant"
	"agentk/services/sandbox/internal/compact"
	"agentk/services/sandbox/internal/signoz"
)

// Quality and shape departures: a service that answers HTTP 200 throughout
// may still have regressed in what it answers (a prompt that now spends
// fewer input tokens and more output tokens, a finish reason that was rare
// and is now common, a score that fell). The overview learns which
// attributes the service's own spans carry from a sample of them (first
// stage), reads the per-minute series of each (a follow-up stage: the mean
// of a numeric attribute, the count of each value of an enumerated one), and
// looks in each for the best single split before the alert. A split counts
// when significant after a Bonferroni correction over every series looked
// at, large (a mean moved by QualityMinShift of its level, or a value's
// share at least doubled and QualityMinShare or more), and still under way
// at the alert. The gate may use these only to place the onset and to
// support prompt_regression or config_regression (see the README).
const (
	// QualitySplitLR is the least statistic (2·ΔlogL, or t² for a mean) of
	// the best split of one series, before the correction: it is the
	// maximum over every split (PooledErrorLR's reasoning); the correction
	// adds 2·ln(N) for N series.
	QualitySplitLR = 13.8
	// QualityMinShift is the least relative move of a numeric attribute's
	// mean; QualityMinShare the least share of a value after the split.
	QualityMinShift = 0.25
	QualityMinShare = 0.2
	// QualityMinMinutes is the least minutes with a value on each side.
	QualityMinMinutes = 5
)

// RelabelMinShare is the least share, after the split, of a value no span
// carried before it for its departure to be a relabel.
const RelabelMinShare = 0.95

// QualityDeparture is one attribute's significant shift. A relabel is a
// value no span carried before that nearly every span carries since (a
// prompt template's or a build's name changed with a release): it names a
// change, not a degradation, and places no onset (EarliestWithQuality).
type QualityDeparture struct {
	fact    contracts.QualityShift
	on      Onset
	relabel bool
}

// Fact is the shift as the overview states it.
func (d QualityDeparture) Fact() contracts.QualityShift { return d.fact }

// A QualityKey is one attribute followed: numeric (its per-minute mean) or
// enumerated (its per-minute count by value).
type QualityKey struct {
	Name    string
	Numeric bool
}

// QualityDepartures judges each key's series (resps in qualityQueries
// order) and returns the significant shifts under way at alertAt, earliest
// first.
func QualityDepartures(keys []QualityKey, resps []signoz.Response, alertAt time.Time, m Margins) ([]QualityDeparture, error) {
	var all []qualitySeries
	for i, k := range keys {
		if i >= len(resps) || resps[i].Refused != "" {
			continue
		}
		if k.Numeric {
			by, err := PerMinuteGrouped(resps[i], resps[i], func(signoz.Series) string { return "all" })
			if err != nil {
				return nil, err
			}
			// PerMinuteGrouped reads aggregation 1 as p95 in ns.
			ms := by["all"]
			for j := range ms {
				ms[j].P95Ms *= 1e6
				ms[j].Errors = 0
			}
			all = append(all, qualitySeries{key: k.Name, ms: sortMinutes(ms), numeric: true})
			continue
		}
		counts, err := PerMinuteGrouped(resps[i], resps[i], LabelOf(k.Name))
		if err != nil {
			return nil, err
		}
		total := map[time.Time]float64{}
		for _, ms := range counts {
			for _, x := range ms {
				total[x.At] += x.Requests
			}
		}
		for _, v := range sortedKeys(counts) {
			var ms []Minute
			for _, x := range counts[v] {
				ms = append(ms, Minute{At: x.At, Requests: total[x.At], Errors: x.Requests})
			}
			have := map[time.Time]bool{}
			for _, x := range ms {
				have[x.At] = true
			}
			for t, n := range total {
				if !have[t] {
					ms = append(ms, Minute{At: t, Requests: n})
				}
			}
			all = append(all, qualitySeries{key: k.Name, value: v, ms: sortMinutes(ms)})
		}
	}
	return judgeQuality(all, alertAt, m), nil
}

// qualitySeries is one series of an attribute: a numeric attribute's
// per-minute mean (P95Ms; Requests the spans with the key), or one value's
// per-minute count (Errors) among the spans with the key (Requests).
type qualitySeries struct {
	key, value string
	ms         []Minute
	numeric    bool
}

// judgeQuality returns the significant shifts of all, each judged at
// QualitySplitLR + 2·ln(N) for N series (Bonferroni), earliest first.
func judgeQuality(all []qualitySeries, alertAt time.Time, m Margins) []QualityDeparture {
	thr := QualitySplitLR + 2*math.Log(float64(max(1, len(all))))
	if mutant.Off(mutant.SandboxQualityBonferroni) {
		thr = QualitySplitLR
	}
	var out []QualityDeparture
	for _, s := range all {
		var d *QualityDeparture
		if s.numeric {
			d = numericShift(s.key, s.ms, alertAt, thr, m)
		} else {
			d = valueShift(s.key, s.value, s.ms, alertAt, thr, m)
		}
		if d != nil {
			out = append(out, *d)
		}
	}
	slices.SortStableFunc(out, func(x, y QualityDeparture) int { return x.on.At.Compare(*y.on.At) })
	return out
}

func sortMinutes(ms []Minute) []Minute {
	slices.SortFunc(ms, func(x, y Minute) int { return x.At.Compare(y.At) })
	return ms
}

// valueShift is the best binomial split of a value's share of the spans
// carrying its key, where significant at thr, the share after at least
// doubled and QualityMinShare or more in each half of the stretch after
// the split (still under way).
func valueShift(key, value string, ms []Minute, alertAt time.Time, thr float64, m Margins) *QualityDeparture {
	s, lr := BestErrorSplit(ms, alertAt)
	if s < QualityMinMinutes || lr < thr {
		return nil
	}
	r0, e0 := Sums(ms[:s])
	r1, e1 := Sums(ms[s:])
	if len(ms)-s < QualityMinMinutes && !shortTailShare(len(ms)-s, r0, e0, r1, e1, thr) {
		return nil
	}
	before, after := e0/r0, e1/r1
	if after < QualityMinShare || after < 2*before || e1 < PooledMinErrors {
		return nil
	}
	half := len(ms[s:]) / 2
	ra, ea := Sums(ms[s : s+half])
	rb, eb := Sums(ms[s+half:])
	if ra == 0 || rb == 0 || ea/ra < QualityMinShare || eb/rb < QualityMinShare {
		return nil
	}
	at := valueShiftAt(ms, s, e0)
	on := qualityOnset(ms[:s], at, "value_share", fmt.Sprintf("the share of %s = %s rose from %s to %s at %s (2·ΔlogL %s)", key, compact.Quote(value), fmtF(round(before)), fmtF(round(after)), at.Format(time.RFC3339), fmtF(round(lr))), m)
	on.QualityKey, on.QualityValue = key, value
	return &QualityDeparture{
		fact:    contracts.QualityShift{Attribute: key, Value: value, At: at, Before: round(before), Since: round(after), Statistic: round(lr)},
		on:      on,
		relabel: e0 == 0 && after >= RelabelMinShare,
	}
}

// valueShiftAt is where a value's share began to rise at the split s of ms:
// right after the last minute before it (the rise may have begun in a
// minute with no span at all), or, for a value no span before the split
// carried (e0 is 0), the first minute a span carried it: a value never
// seen cannot have risen before it was first seen (a new prompt template
// first sampled a minute after a minute with no span, s1018-w038). The
// refinement inside that minute reads the spans' values (onsetMarks).
func valueShiftAt(ms []Minute, s int, e0 float64) time.Time {
	at := ms[s-1].At.Add(time.Minute).UTC()
	if e0 > 0 && !mutant.Off(mutant.SandboxQualityFirstSeen) {
		return at
	}
	for _, x := range ms[s:] {
		if x.Errors > 0 {
			return maxTime(at, x.At).UTC()
		}
	}
	return at
}

// numericShift is the best split of an attribute's per-minute means into
// two levels (the largest Welch t²), where t² is at least thr, the mean
// moved by QualityMinShift of the level before, and the minutes after the
// split, in each half, stay on the new side of the midpoint.
func numericShift(key string, ms []Minute, alertAt time.Time, thr float64, m Margins) *QualityDeparture {
	var pts []Minute
	for _, x := range ms {
		if !math.IsNaN(x.P95Ms) && x.Requests > 0 {
			pts = append(pts, x)
		}
	}
	best, at := 0.0, -1
	for s := QualityMinMinutes; s <= len(pts)-QualityMinMinutes && !pts[s].At.After(alertAt); s++ {
		if t2 := welchT2(pts[:s], pts[s:]); t2 > best {
			best, at = t2, s
		}
	}
	if at < 0 || best < thr || !exactHolds(pts[:at], pts[at:], thr) {
		if at, best = shortTailNumeric(pts, alertAt, thr); at < 0 {
			return nil
		}
	}
	m0, m1 := meanOf(pts[:at]), meanOf(pts[at:])
	if math.Abs(m1-m0) < QualityMinShift*math.Max(math.Abs(m0), 1e-9) {
		return nil
	}
	mid, up := (m0+m1)/2, m1 > m0
	half := len(pts[at:]) / 2
	for _, part := range [][]Minute{pts[at : at+half], pts[at+half:]} {
		if v := meanOf(part); len(part) > 0 && (v > mid) != up {
			return nil
		}
	}
	start := pts[at-1].At.Add(time.Minute).UTC()
	return &QualityDeparture{
		fact: contracts.QualityShift{Attribute: key, At: start, Before: round(m0), Since: round(m1), Statistic: round(best)},
		on:   qualityOnset(ms, start, "mean", fmt.Sprintf("the mean of %s moved from %s to %s at %s (t² %s)", key, fmtF(round(m0)), fmtF(round(m1)), start.Format(time.RFC3339), fmtF(round(best))), m),
	}
}

func meanOf(ms []Minute) float64 {
	var s float64
	for _, x := range ms {
		s += x.P95Ms
	}
	return s / float64(len(ms))
}

// welchT2 is the squared Welch t statistic of the means of a and b.
func welchT2(a, b []Minute) float64 {
	va := func(ms []Minute) (float64, float64) {
		mu := meanOf(ms)
		var ss float64
		for _, x := range ms {
			ss += (x.P95Ms - mu) * (x.P95Ms - mu)
		}
		return mu, ss / float64(max(1, len(ms)-1))
	}
	ma, sa := va(a)
	mb, sb := va(b)
	se := sa/float64(len(a)) + sb/float64(len(b))
	if se <= 0 {
		if ma == mb {
			return 0
		}
		return math.Inf(1)
	}
	return (ma - mb) * (ma - mb) / se
}

// qualityOnset is the onset a quality shift places, with the baseline
// before it (minutes and requests of its series).
func qualityOnset(before []Minute, at time.Time, signal, reason string, m Margins) Onset {
	var reqs float64
	var n int
	var from time.Time
	for _, x := range before {
		if x.At.Before(at) && x.Requests > 0 {
			if n == 0 {
				from = x.At
			}
			n++
			reqs += x.Requests
		}
	}
	return Onset{At: &at, Signal: signal, BaselineFrom: from, BaselineMinutes: n, BaselineRequests: reqs, BucketMinutes: 1, Reason: reason, Quality: true}
}

// EarliestWithQuality is on, or the earliest quality shift where that is
// earlier (or on found none); an onset unknown for a short baseline stays
// unknown. The quality onset keeps on's baseline where on has one.
func EarliestWithQuality(on Onset, deps []QualityDeparture) Onset {
	if on.Short || len(deps) == 0 || mutant.Off(mutant.SandboxQualityOnset) {
		return on
	}
	i := slices.IndexFunc(deps, func(d QualityDeparture) bool { return !d.relabel || mutant.Off(mutant.SandboxQualityRelabel) })
	if i < 0 {
		return on
	}
	first := deps[i].on
	if on.At != nil && !first.At.Before(*on.At) {
		return on
	}
	if first.BaselineMinutes < DefaultMargins.MinBaselineMinutes {
		return on
	}
	if on.At != nil || on.BaselineMinutes > 0 {
		first.BaselineErrorRate, first.BaselineP95Ms, first.ErrorThreshold, first.P95ThresholdMs = on.BaselineErrorRate, on.BaselineP95Ms, on.ErrorThreshold, on.P95ThresholdMs
	}
	return first
}

// QualityFacts are the facts of the shifts (at most five).
func QualityFacts(deps []QualityDeparture) []contracts.QualityShift {
	var out []contracts.QualityShift
	for _, d := range deps[:min(len(deps), 5)] {
		out = append(out, d.fact)
	}
	return out
}
