package tools

import (
	"fmt"
	"math"
	"slices"
	"strings"
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
	// QualitySample is how many of the service's spans the first stage
	// reads to learn its attributes.
	QualitySample = 300
	// MaxQualityNumeric and MaxQualityEnum bound the attributes followed.
	MaxQualityNumeric = 8
	MaxQualityEnum    = 6
	// MaxQualityValues is the most distinct values an attribute may show in
	// the sample to be read as enumerated.
	MaxQualityValues = 8
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

const qQualitySample = "quality_sample"

// qualityIgnored are attribute prefixes that describe the request's route,
// its peers, the process or the telemetry, not what the service answered:
// their mix moves with the traffic, and other facts read them.
var qualityIgnored = []string{"http.", "url.", "server.", "client.", "net.", "network.", "peer.", "rpc.", "db.", "messaging.",
	"process.", "thread.", "code.", "service.", "deployment.", "telemetry.", "otel.", "exception.", "user_agent.", "host.",
	"k8s.", "container.", "os.", "jvm.", "go.", "v8js.", "nodejs.", "dotnet.", "error.", "span.", "trace", "status"}

// qualitySampleQuery is the first stage's raw sample of the service's spans
// (every attribute), the latest first.
func qualitySampleQuery(svc string, from, to int64) Query {
	return Query{Name: qQualitySample, Request: signoz.NewRequest(signoz.RequestRaw, from, to, signoz.BuilderQuery{Name: "A", Signal: signoz.SignalTraces,
		Filter: signoz.Filter{Expression: and(svc, notMarker)}, Limit: QualitySample, Order: desc("timestamp")})}
}

// qualityKey is one attribute followed: numeric (its per-minute mean) or
// enumerated (its per-minute count by value).
type qualityKey struct {
	name    string
	numeric bool
}

// qualityKeys reads the sample's attributes: numeric where every value
// seen is a number, enumerated where at most MaxQualityValues distinct
// strings or booleans were seen on at least 10 spans; ignored prefixes,
// runtime and retry attributes aside.
func qualityKeys(resp signoz.Response) []qualityKey {
	q, _ := sampleKeys(resp)
	return q
}

// retryKeys are the numeric attributes of the sample that count retries
// or attempts (isRetryAttribute), at most MaxRetryAttributes.
func retryKeys(resp signoz.Response) []string {
	_, r := sampleKeys(resp)
	return r
}

// keySeen is what the sample showed of one attribute: on how many spans,
// how many of those values were numbers, and the other values.
type keySeen struct {
	n, nums int
	values  map[string]bool
}

// sampleKeysOf reads the attributes of the span sample: those followed as
// quality, and those counting retries.
func sampleKeysOf(resp signoz.Response) ([]qualityKey, []string) {
	by := sampleAttributes(resp)
	var num, enum []qualityKey
	var retry []string
	for _, k := range sortedKeys(by) {
		s := by[k]
		switch {
		case isRetryAttribute(k):
			if s.nums == s.n && len(retry) < MaxRetryAttributes {
				retry = append(retry, k)
			}
		case s.nums == s.n && s.n >= 10:
			num = append(num, qualityKey{name: k, numeric: true})
		case s.nums == 0 && s.n >= 10 && len(s.values) >= 1 && len(s.values) <= MaxQualityValues:
			enum = append(enum, qualityKey{name: k})
		}
	}
	return append(num[:min(len(num), MaxQualityNumeric)], enum[:min(len(enum), MaxQualityEnum)]...), retry
}

// sampleAttributes counts, per attribute of the sample's spans (ignored
// prefixes aside, retry attributes kept), its spans and its values.
func sampleAttributes(resp signoz.Response) map[string]*keySeen {
	by := map[string]*keySeen{}
	res, err := resp.Raw()
	if err != nil {
		return by
	}
	for _, r := range res {
		for _, row := range r.Rows {
			for _, m := range attrMaps {
				mm, _ := row.Data[m].(map[string]any)
				for k, v := range mm {
					if v == nil || (ignoredQuality(k) && !isRetryAttribute(k)) {
						continue
					}
					s := by[k]
					if s == nil {
						s = &keySeen{values: map[string]bool{}}
						by[k] = s
					}
					s.n++
					switch x := v.(type) {
					case float64, int, int64:
						s.nums++
					case string:
						s.values[x] = true
					case bool:
						s.values[fmt.Sprint(x)] = true
					}
				}
			}
		}
	}
	return by
}

func ignoredQuality(k string) bool {
	if slices.Contains(RuntimeAttributes, k) || isRetryAttribute(k) {
		return true
	}
	for _, p := range qualityIgnored {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}

// qualityQueries are the follow-up stage's series of keys over the onset window.
func qualityQueries(svc string, ow Window, keys []qualityKey) []Query {
	var qs []Query
	for _, k := range keys {
		q := signoz.BuilderQuery{Name: "A", Signal: signoz.SignalTraces, StepInterval: 60, Filter: signoz.Filter{Expression: and(svc, notMarker, k.name+" EXISTS")}, Limit: 20}
		if k.numeric {
			q.Aggregations = []signoz.Aggregation{{Expression: "count()"}, {Expression: "avg(" + k.name + ")"}}
		} else {
			q.Aggregations = []signoz.Aggregation{{Expression: "count()"}}
			q.GroupBy = []signoz.FieldKey{{Name: k.name, FieldContext: "attribute"}}
		}
		qs = append(qs, Query{Name: "per_minute_quality_" + k.name, Optional: true, Request: signoz.NewRequest(signoz.RequestTimeSeries, ow.From.UnixMilli(), ow.To.UnixMilli(), q)})
	}
	return qs
}

// qualityDeparture is one attribute's significant shift.
type qualityDeparture struct {
	fact contracts.QualityShift
	on   Onset
}

// qualityDepartures judges each key's series (resps in qualityQueries
// order) and returns the significant shifts under way at alertAt, earliest
// first.
func qualityDepartures(keys []qualityKey, resps []signoz.Response, alertAt time.Time, m Margins) ([]qualityDeparture, error) {
	var all []qualitySeries
	for i, k := range keys {
		if i >= len(resps) || resps[i].Refused != "" {
			continue
		}
		if k.numeric {
			by, err := perMinuteGrouped(resps[i], resps[i], func(signoz.Series) string { return "all" })
			if err != nil {
				return nil, err
			}
			// perMinuteGrouped reads aggregation 1 as p95 in ns.
			ms := by["all"]
			for j := range ms {
				ms[j].P95Ms *= 1e6
				ms[j].Errors = 0
			}
			all = append(all, qualitySeries{key: k.name, ms: sortMinutes(ms), numeric: true})
			continue
		}
		counts, err := perMinuteGrouped(resps[i], resps[i], labelOf(k.name))
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
			all = append(all, qualitySeries{key: k.name, value: v, ms: sortMinutes(ms)})
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
func judgeQuality(all []qualitySeries, alertAt time.Time, m Margins) []qualityDeparture {
	thr := QualitySplitLR + 2*math.Log(float64(max(1, len(all))))
	if mutant.Off(mutant.SandboxQualityBonferroni) {
		thr = QualitySplitLR
	}
	var out []qualityDeparture
	for _, s := range all {
		var d *qualityDeparture
		if s.numeric {
			d = numericShift(s.key, s.ms, alertAt, thr, m)
		} else {
			d = valueShift(s.key, s.value, s.ms, alertAt, thr, m)
		}
		if d != nil {
			out = append(out, *d)
		}
	}
	slices.SortStableFunc(out, func(x, y qualityDeparture) int { return x.on.At.Compare(*y.on.At) })
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
func valueShift(key, value string, ms []Minute, alertAt time.Time, thr float64, m Margins) *qualityDeparture {
	s, lr := bestErrorSplit(ms, alertAt)
	if s < QualityMinMinutes || lr < thr {
		return nil
	}
	r0, e0 := sums(ms[:s])
	r1, e1 := sums(ms[s:])
	if len(ms)-s < QualityMinMinutes && !shortTailShare(len(ms)-s, r0, e0, r1, e1, thr) {
		return nil
	}
	before, after := e0/r0, e1/r1
	if after < QualityMinShare || after < 2*before || e1 < PooledMinErrors {
		return nil
	}
	half := len(ms[s:]) / 2
	ra, ea := sums(ms[s : s+half])
	rb, eb := sums(ms[s+half:])
	if ra == 0 || rb == 0 || ea/ra < QualityMinShare || eb/rb < QualityMinShare {
		return nil
	}
	at := valueShiftAt(ms, s, e0)
	on := qualityOnset(ms[:s], at, "value_share", fmt.Sprintf("the share of %s = %s rose from %s to %s at %s (2·ΔlogL %s)", key, compact.Quote(value), fmtF(round(before)), fmtF(round(after)), at.Format(time.RFC3339), fmtF(round(lr))), m)
	on.QualityKey, on.QualityValue = key, value
	return &qualityDeparture{
		fact: contracts.QualityShift{Attribute: key, Value: value, At: at, Before: round(before), Since: round(after), Statistic: round(lr)},
		on:   on,
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
func numericShift(key string, ms []Minute, alertAt time.Time, thr float64, m Margins) *qualityDeparture {
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
	return &qualityDeparture{
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

// earliestWithQuality is on, or the earliest quality shift where that is
// earlier (or on found none); an onset unknown for a short baseline stays
// unknown. The quality onset keeps on's baseline where on has one.
func earliestWithQuality(on Onset, deps []qualityDeparture) Onset {
	if on.Short || len(deps) == 0 || mutant.Off(mutant.SandboxQualityOnset) {
		return on
	}
	first := deps[0].on
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

// qualityFacts are the facts of the shifts (at most five).
func qualityFacts(deps []qualityDeparture) []contracts.QualityShift {
	var out []contracts.QualityShift
	for _, d := range deps[:min(len(deps), 5)] {
		out = append(out, d.fact)
	}
	return out
}

// qualityLine says which attributes shifted.
func qualityLine(q []contracts.QualityShift) string {
	var parts []string
	for _, s := range q {
		what := compact.Quote(s.Attribute) + " mean"
		if s.Value != "" {
			what = compact.Quote(s.Attribute) + " = " + compact.Quote(s.Value) + " share"
		}
		parts = append(parts, fmt.Sprintf("%s %s -> %s from %s", what, fmtF(s.Before), fmtF(s.Since), s.At.Format(time.RFC3339)))
	}
	return "attributes of the service's own spans that shifted (significant over every series looked at): " + strings.Join(parts, "; ")
}
