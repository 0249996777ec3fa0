package facts

import (
	"fmt"
	"math"
	"slices"
	"time"

	"agentk/platform/mutant"
	"agentk/platform/stats"
)

// Margins say how far the series must leave its baseline, and for how long, to
// count as the onset, and how much baseline that takes.
type Margins struct {
	// ErrorRateFactor and ErrorRateAbs: a bucket's error rate is off baseline at
	// or above max(base × factor, base + abs).
	ErrorRateFactor, ErrorRateAbs float64
	// P95Factor and P95AbsMs: p95 is off baseline at or above
	// max(base × factor, base + abs, base + 3 × 1.4826 × MAD).
	P95Factor, P95AbsMs float64
	// Sustain is how many consecutive buckets with traffic must be off
	// baseline (fewer when the data ends sooner).
	Sustain int
	// MinRequests is the least sampled traffic for a bucket's error rate to count.
	MinRequests float64
	// MinBaselineMinutes and MinBaselineRequests are the least baseline (minutes
	// with traffic, sampled requests) before a candidate onset; with less the
	// onset is unknown and the evidence says so.
	MinBaselineMinutes  int
	MinBaselineRequests float64
	// BucketRequests is the sampled traffic a bucket should hold: sparse series
	// (low traffic, heavy sampling) are judged over buckets of several minutes,
	// at most MaxBucketMinutes wide.
	BucketRequests   float64
	MaxBucketMinutes int
	// Tolerance is how many buckets back on baseline a regression may show
	// before it counts as over (sampled data is noisy).
	Tolerance int
	// BucketAlpha, when set, also asks of a bucket off in its error rate
	// that its errors be that unlikely under the baseline's rate (at least
	// half an error over the baseline's requests; binomial tail): in a thin
	// series with no error in its baseline one stray error would otherwise
	// fill a bucket past the margins. Operations' series set it
	// (operationMargins); the service's own leaves it 0.
	BucketAlpha float64
}

// DefaultMargins are stated in the README: error rate ≥ 2× baseline and +5
// points, or p95 ≥ 1.5× baseline and +50 ms (and 3 robust deviations), for 3
// consecutive buckets; the baseline is at least 10 minutes with traffic and
// 30 sampled requests; a bucket holds about 10 sampled requests (1 to 15
// minutes wide).
var DefaultMargins = Margins{
	ErrorRateFactor: 2, ErrorRateAbs: 0.05, P95Factor: 1.5, P95AbsMs: 50, Sustain: 3, MinRequests: 3,
	MinBaselineMinutes: 10, MinBaselineRequests: 30, BucketRequests: 10, MaxBucketMinutes: 15, Tolerance: 2,
}

// Onset is the result of FindOnset.
type Onset struct {
	// At is nil when no regression was found or the baseline is too short.
	At                *time.Time
	Signal            string // "error_rate" or "p95"
	BaselineErrorRate float64
	BaselineP95Ms     float64
	ErrorThreshold    float64
	P95ThresholdMs    float64
	// BaselineFrom and BaselineMinutes, BaselineRequests describe the baseline
	// the onset was judged against (every minute with traffic before it, less
	// earlier departures that recovered).
	BaselineFrom     time.Time
	BaselineMinutes  int
	BaselineRequests float64
	// BucketMinutes is the width the series was judged at.
	BucketMinutes int
	// Short is set when the baseline was too short to place the onset.
	Short bool
	// Reason explains the outcome in one sentence of plain words.
	Reason string
	// Pooled is set when the onset is the significant split of a sparse
	// error series (onsetSearch.pooled), not a departure from the margins.
	Pooled bool
	// Refined says, when RefineOnset moved At later inside its bucket, from
	// where and why.
	Refined string
	// Signatures says, when SignatureOnset moved the onset later to where
	// errors of new status signatures begin, from where and why.
	Signatures string
	// Operation names the operation whose own series placed the onset
	// (operationDepartures), empty for the service aggregate's.
	Operation string
	// Quality is set when an attribute's shift placed the onset
	// (earliestWithQuality), Signal then "mean" or "value_share".
	Quality bool
	// Rule names the alert's own rule and what it measures when its series
	// placed the onset (earliestWithRule), Signal then "rule".
	Rule string
	// Status names the gRPC rejection codes when the operation's departure
	// holds only with its server spans' rejections counted
	// (OperationDeparturesWithStatus): RefineOnset then counts a rejection
	// as off, and the gate lets only a release that changed what the service
	// accepts lean on it.
	Status string
	// OpFilter selects that operation's spans (refineQuery reads only them).
	OpFilter string
	// QualityKey and QualityValue are, for a value_share onset, the
	// attribute and the value whose share rose (onsetMarks reads them).
	QualityKey, QualityValue string
	// Dependency names the peer whose calls placed the onset
	// (EarliestWithSlowDependency): a slow dependency whose client spans
	// left their own baseline before any other signal did. OpFilter then
	// selects those calls, and DependencyP95Ms is the p95 threshold at
	// which one of them is off (OnsetMarks); the baseline and the
	// thresholds stay the service's.
	Dependency      string
	DependencyP95Ms float64
}

type bucket struct {
	at       time.Time
	minutes  []Minute // with traffic
	requests float64
	errors   float64
	p95      float64 // NaN when unknown
}

func (b bucket) rate() float64 { return b.errors / b.requests }

type baseline struct {
	minutes  int
	requests float64
	from     time.Time
	errRate  float64
	p95      float64 // NaN when unknown
	errThr   float64
	p95Thr   float64 // +Inf when unknown
	alpha    float64 // Margins.BucketAlpha
}

// bucketWidth is the smallest width from 1, 2, 3, 5, 10, 15 minutes (up to
// m.MaxBucketMinutes) at which the median minute with traffic fills a bucket
// with m.BucketRequests sampled requests.
func bucketWidth(active []Minute, m Margins) int {
	var reqs []float64
	for _, x := range active {
		reqs = append(reqs, x.Requests)
	}
	// Sparse series skip minutes: count the minutes of the whole span.
	span := active[len(active)-1].At.Sub(active[0].At).Minutes() + 1
	var total float64
	for _, r := range reqs {
		total += r
	}
	perMinute := math.Min(Median(reqs), total/span)
	w := 1
	for _, c := range []int{1, 2, 3, 5, 10, 15} {
		if c > m.MaxBucketMinutes {
			break
		}
		w = c
		if perMinute*float64(c) >= m.BucketRequests {
			break
		}
	}
	return w
}

// finish sets each bucket's p95: the median of its minutes' p95.
func finish(bs []bucket) {
	for i := range bs {
		slices.SortFunc(bs[i].minutes, func(a, b Minute) int { return a.At.Compare(b.At) })
		var p []float64
		for _, x := range bs[i].minutes {
			if !math.IsNaN(x.P95Ms) {
				p = append(p, x.P95Ms)
			}
		}
		bs[i].p95 = math.NaN()
		if len(p) > 0 {
			bs[i].p95 = Median(p)
		}
	}
}

// baselineOf is the robust baseline of bs: the error rate pooled over the
// buckets less the quarter with the highest rates (a short spike does not
// raise it), the median p95 and its MAD.
func baselineOf(bs []bucket, m Margins) baseline {
	var b baseline
	var kept []bucket
	for _, x := range bs {
		if b.minutes == 0 {
			b.from = x.minutes[0].At
		}
		b.minutes += len(x.minutes)
		b.requests += x.requests
		kept = append(kept, x)
	}
	b.p95, b.p95Thr = math.NaN(), math.Inf(1)
	if len(kept) == 0 {
		return b
	}
	byRate := slices.Clone(kept)
	slices.SortFunc(byRate, func(x, y bucket) int {
		switch rx, ry := x.rate(), y.rate(); {
		case rx < ry:
			return -1
		case rx > ry:
			return 1
		}
		return 0
	})
	byRate = byRate[:len(byRate)-(len(byRate)+3)/4*min(1, len(byRate)/4)]
	var req, errs float64
	for _, x := range byRate {
		req += x.requests
		errs += x.errors
	}
	if req > 0 {
		b.errRate = errs / req
	}
	b.errThr = math.Max(b.errRate*m.ErrorRateFactor, b.errRate+m.ErrorRateAbs)
	b.alpha = m.BucketAlpha
	var p []float64
	for _, x := range kept {
		if !math.IsNaN(x.p95) {
			p = append(p, x.p95)
		}
	}
	if len(p) > 0 {
		b.p95 = Median(p)
		var dev []float64
		for _, v := range p {
			dev = append(dev, math.Abs(v-b.p95))
		}
		b.p95Thr = math.Max(math.Max(b.p95*m.P95Factor, b.p95+m.P95AbsMs), b.p95+3*1.4826*Median(dev))
	}
	return b
}

func (b baseline) enough(m Margins) bool {
	return b.minutes >= m.MinBaselineMinutes && b.requests >= m.MinBaselineRequests
}

// off says which signal of x is off the baseline, or "". Both signals need
// minReq sampled requests: below that an error rate is one error, and a p95
// is one slow request (the last bucket before the data ends may hold a
// minute of a sparse series, two spans, one of them slow).
func (b baseline) off(requests, errors, p95 float64, minReq float64) string {
	if requests < minReq || requests <= 0 {
		return ""
	}
	if b.errorsOff(requests, errors) {
		return "error_rate"
	}
	if !math.IsNaN(p95) && p95 >= b.p95Thr {
		return "p95"
	}
	return ""
}

// errorsOff reports whether errors in requests are off the baseline: at or
// above the threshold and, with alpha set, unlikely under its rate.
func (b baseline) errorsOff(requests, errors float64) bool {
	if errors/requests < b.errThr {
		return false
	}
	if b.alpha <= 0 || mutant.Off(mutant.SandboxOperationBucketTest) {
		return true
	}
	p0 := math.Max(b.errRate, 0.5/math.Max(b.requests, 1))
	return stats.BinomTail(int(math.Round(errors)), int(math.Round(requests)), math.Min(p0, 1)) <= b.alpha
}

func (b baseline) offAs(x bucket, m Margins, sig string) bool {
	if x.requests < m.MinRequests || x.requests <= 0 {
		return false
	}
	switch sig {
	case "error_rate":
		return b.errorsOff(x.requests, x.errors)
	case "p95":
		return !math.IsNaN(x.p95) && x.p95 >= b.p95Thr
	}
	return false
}

func (b baseline) offBucket(x bucket, m Margins) string {
	return b.off(x.requests, x.errors, x.p95, m.MinRequests)
}

// FindOnset finds the change point of a service's per-minute series: the first
// minute of the departure from the baseline that is still under way when the
// alert fired at alertAt. The baseline of a candidate minute is every minute
// with traffic before it, less earlier departures that recovered (an earlier
// incident does not move the onset), judged with robust statistics (a trimmed
// pooled error rate, the median p95 and its MAD). Sparse series (low traffic,
// heavy sampling) are judged over buckets of several minutes that start at the
// candidate, so the onset found is never later than the first bucket that is
// off, and may be up to one bucket early: a deployment inside that bucket
// never looks like it came first. Minutes need not be sorted; minutes with no
// traffic (gaps) are skipped.
//
// When the baseline before the departure is shorter than m's minimum, At is
// nil, Short is set and Reason says so in plain words ("baseline 6 min (40
// sampled requests) before the regression began near …, need 10 min and 30
// sampled requests"): a gate must then fail closed.
func FindOnset(minutes []Minute, alertAt time.Time, m Margins) Onset {
	var active []Minute
	for _, x := range minutes {
		if x.Requests > 0 {
			active = append(active, x)
		}
	}
	slices.SortFunc(active, func(a, b Minute) int { return a.At.Compare(b.At) })
	if len(active) == 0 {
		return Onset{Short: true, Reason: "no traffic in the series (baseline 0 min, " + needText(m) + "): onset unknown"}
	}
	w := bucketWidth(active, m)
	o := &onsetSearch{active: active, excluded: make([]bool, len(active)), w: w, width: time.Duration(w) * time.Minute, m: m, alertAt: alertAt}
	latest := alertAt.Add(o.width)
	first := o.firstCandidate()
	if first < 0 || !active[first].At.Before(latest) {
		b := baselineOf(o.backward(alertAt), m)
		return o.short(b, fmt.Sprintf("baseline %d min (%s sampled requests) before the alert, %s: onset unknown", b.minutes, fmtF(b.requests), needText(m)))
	}
	cached, quick := -1, baseline{}
	for i := first; i < len(active) && active[i].At.Before(latest); i++ {
		if o.excluded[i] {
			continue
		}
		// A quick look against a baseline at most ten minutes old first (it
		// holds less of any regression, so it is the more sensitive), the
		// exact baseline only where that look sees a departure.
		if cached < 0 || i-cached >= 10 {
			quick, cached = baselineOf(o.backward(active[i].At), m), i
		}
		if quick.offBucket(o.forward(i, 1)[0], m) == "" {
			continue
		}
		d, ok := o.departure(i)
		if !ok {
			continue
		}
		if end := o.runEnd(d); !o.ongoing(d, end) {
			// An earlier departure that recovered: not this incident, and
			// not part of any later baseline.
			stop := o.indexAt(d.fw[end].at.Add(o.width))
			for j := i; j < stop; j++ {
				o.excluded[j] = true
			}
			cached = -1
			i = stop - 1
			continue
		}
		on := o.place(i, first, d)
		// A weak regression too sparse for any bucket to leave the
		// margins may have begun before the departure found when that
		// departure begins after the alert (it did not fire the alert):
		// the pooled test's onset, where it is earlier. A departure under
		// way by the alert stands: over hours of history the pooled split
		// can find some stretch of a slightly higher error rate (a traffic
		// surge's world with 6 hours of history before it put its onset
		// 2 h 10 min early, and its diagnosis changed).
		if p, ok := o.pooled(); ok && on.At != nil && on.At.After(o.alertAt) && p.At.Before(*on.At) {
			return p
		}
		return on
	}
	if on, ok := o.pooled(); ok {
		return on
	}
	base := baselineOf(o.backward(alertAt), m)
	return Onset{BaselineErrorRate: base.errRate, BaselineP95Ms: nanZero(base.p95), ErrorThreshold: base.errThr, P95ThresholdMs: infZero(base.p95Thr),
		BaselineFrom: base.from, BaselineMinutes: base.minutes, BaselineRequests: base.requests, BucketMinutes: w,
		Reason: "no sustained departure from the baseline"}
}

func needText(m Margins) string {
	return fmt.Sprintf("need %d min and %s sampled requests", m.MinBaselineMinutes, fmtF(m.MinBaselineRequests))
}

// onsetSearch is FindOnset's state: the minutes with traffic, sorted, those
// excluded as earlier departures that recovered, and the bucket width.
type onsetSearch struct {
	active   []Minute
	excluded []bool
	w        int
	width    time.Duration
	m        Margins
	alertAt  time.Time
}

// short is an unknown onset for a baseline too short, with its reason.
func (o *onsetSearch) short(b baseline, reason string) Onset {
	return Onset{BucketMinutes: o.w, Short: true, BaselineMinutes: b.minutes, BaselineRequests: b.requests, BaselineFrom: b.from, Reason: reason}
}

// backward buckets the minutes before t into w-minute buckets that end at
// t, skipping excluded minutes.
func (o *onsetSearch) backward(t time.Time) []bucket {
	var out []bucket
	for j := len(o.active) - 1; j >= 0; j-- {
		if o.excluded[j] || !o.active[j].At.Before(t) {
			continue
		}
		k := int(t.Sub(o.active[j].At)-time.Nanosecond) / int(o.width)
		at := t.Add(-time.Duration(k+1) * o.width)
		if len(out) == 0 || !out[len(out)-1].at.Equal(at) {
			out = append(out, bucket{at: at})
		}
		out[len(out)-1].add(o.active[j])
	}
	slices.Reverse(out)
	finish(out)
	return out
}

// forward buckets the minutes from index i on into at most most w-minute
// buckets that start at active[i].
func (o *onsetSearch) forward(i, most int) []bucket {
	var out []bucket
	for j := i; j < len(o.active); j++ {
		k := int(o.active[j].At.Sub(o.active[i].At)) / int(o.width)
		if k >= most {
			break
		}
		at := o.active[i].At.Add(time.Duration(k) * o.width)
		if len(out) == 0 || !out[len(out)-1].at.Equal(at) {
			out = append(out, bucket{at: at})
		}
		out[len(out)-1].add(o.active[j])
	}
	finish(out)
	return out
}

func (b *bucket) add(x Minute) {
	b.minutes = append(b.minutes, x)
	b.requests += x.Requests
	b.errors += x.Errors
}

func (o *onsetSearch) indexAt(t time.Time) int {
	i, _ := slices.BinarySearchFunc(o.active, t, func(x Minute, t time.Time) int { return x.At.Compare(t) })
	return i
}

// firstCandidate is the index of the first minute with the minimum baseline
// before it, or -1.
func (o *onsetSearch) firstCandidate() int {
	var minutesSeen int
	var requestsSeen float64
	for i := range o.active {
		if minutesSeen >= o.m.MinBaselineMinutes && requestsSeen >= o.m.MinBaselineRequests {
			return i
		}
		minutesSeen++
		requestsSeen += o.active[i].Requests
	}
	return -1
}

// departure is a candidate run off the baseline: the buckets before and from
// the candidate, the baseline, the signal and how many buckets must hold.
type departure struct {
	back, fw []bucket
	base     baseline
	sig      string
	n        int
}

// departure reports whether the series leaves its exact baseline at minute
// i and stays off for Sustain buckets, and with which signal.
func (o *onsetSearch) departure(i int) (departure, bool) {
	m := o.m
	d := departure{back: o.backward(o.active[i].At)}
	d.base = baselineOf(d.back, m)
	d.fw = o.forward(i, len(o.active))
	if d.sig = d.base.offBucket(d.fw[0], m); d.sig == "" {
		return d, false
	}
	d.n = min(m.Sustain, len(d.fw))
	for _, y := range d.fw[:d.n] {
		if d.base.offBucket(y, m) == "" {
			return d, false
		}
	}
	// The signal is the one off in every bucket of the run's start, if one
	// is: a stray error in a slow minute does not name it.
	for _, cand := range []string{"error_rate", "p95"} {
		if !slices.ContainsFunc(d.fw[:d.n], func(y bucket) bool { return !d.base.offAs(y, m, cand) }) {
			d.sig = cand
			break
		}
	}
	if d.sig == "p95" && !o.p95RunHolds(d) {
		// No more buckets off than the baseline's own rate explains: no
		// departure, and no episode to set apart from later baselines
		// either (the baseline keeps its own noise).
		return d, false
	}
	return d, true
}

// P95RunAlpha is the chance allowed, at the baseline's own rate of buckets
// off in p95, of a p95 departure's buckets arising by chance from any bucket
// of the baseline (p95RunHolds). It is loose on purpose: a departure refused
// moves the onset later, the side a stale marker needs; at 0.05 a slow
// route's share tripled before a marker lost its onset in one draw of 20
// where the margins alone found it (TestP95RunOfABimodalBaseline), at 0.2
// in none.
const P95RunAlpha = 0.2

// p95RunHolds reports whether a p95 departure holds more buckets off than
// its baseline's own rate of off buckets explains. The p95 threshold is set
// from the baseline's median and MAD, which say nothing of how often a
// bucket passes it: where a slow operation's sampled spans are near a
// twentieth of a minute's (a PDF route, 1.6 kept a minute at 1 in 5), a
// minute's p95 is that operation's whenever two of its spans are kept, and
// Sustain buckets off in a row are a Poisson run the baseline shows as
// often. With q the share of the baseline's buckets (those with MinRequests
// and a p95) off in p95 and B their number, the run must have, over some
// stretch of L ≥ Sustain buckets from its start, k buckets off with
// B·P(Binomial(L, q) ≥ k) ≤ P95RunAlpha: a real regression off most
// buckets passes over a few more buckets whatever q, a blip followed by the
// baseline's own rate seldom does. A baseline never off (q = 0), the usual
// case, asks nothing more, and neither does a run too near the end of the
// data to be judged.
func (o *onsetSearch) p95RunHolds(d departure) bool {
	var k, b int
	for _, x := range d.back {
		if x.requests < o.m.MinRequests || math.IsNaN(x.p95) {
			continue
		}
		b++
		if x.p95 >= d.base.p95Thr {
			k++
		}
	}
	if k == 0 || mutant.Off(mutant.SandboxP95RunLength) {
		return true
	}
	q := float64(k) / float64(b)
	// Where the data end before a run all off could pass, the test cannot
	// tell and the margins' reading stands (a regression that began a few
	// minutes before the alert: stranger's st-even-slowdown-catalog-read,
	// 40 minutes of history).
	if float64(b)*math.Pow(q, float64(len(d.fw))) > P95RunAlpha {
		return true
	}
	off := 0
	for l, y := range d.fw {
		if d.base.offAs(y, o.m, "p95") {
			off++
		}
		if l+1 >= d.n && float64(b)*stats.BinomTail(off, l+1, q) <= P95RunAlpha {
			return true
		}
	}
	return false
}

// runEnd is the last bucket of the run: up to Tolerance buckets back on
// baseline do not end it.
func (o *onsetSearch) runEnd(d departure) int {
	end, gap := 0, 0
	for j := 1; j < len(d.fw) && gap <= o.m.Tolerance; j++ {
		if d.base.offBucket(d.fw[j], o.m) != "" {
			end, gap = j, 0
		} else {
			gap++
		}
	}
	return end
}

// ongoing reports whether the run that ends at bucket end is still under
// way: no more than Tolerance buckets back on baseline follow it, or it
// ran to the alert. Buckets at the end of the data with fewer than
// MinRequests sampled requests (the data's last, partial minute) say
// nothing either way: they are neither off (offBucket) nor on.
func (o *onsetSearch) ongoing(d departure, end int) bool {
	last := len(d.fw) - 1
	for last > end && d.fw[last].requests < o.m.MinRequests {
		last--
	}
	return end >= last-o.m.Tolerance || !d.fw[end].at.Add(o.width).Before(o.alertAt)
}

// place returns the onset of the ongoing departure found at minute i, or an
// unknown onset when its start cannot be measured.
func (o *onsetSearch) place(i, first int, d departure) Onset {
	m, active, base, back := o.m, o.active, d.base, d.back
	if i == first && len(back) > 0 && base.offBucket(back[len(back)-1], m) != "" {
		// The departure was already under way when the baseline reached
		// its minimum: its start cannot be measured.
		k := len(back) - 1
		for k > 0 && base.offBucket(back[k-1], m) != "" {
			k--
		}
		short := baselineOf(back[:k], m)
		return o.short(short, fmt.Sprintf("baseline %d min (%s sampled requests) before the regression began near %s, %s: onset unknown",
			short.minutes, fmtF(short.requests), back[k].minutes[0].At.Format(time.RFC3339), needText(m)))
	}
	// Between the last minute seen on baseline and the first seen off, the
	// regression may have begun at any minute: take the earliest (within
	// one bucket; a longer stretch without spans is a gap).
	at := active[i].At
	if i > 0 {
		at = maxTime(active[i-1].At.Add(time.Minute), at.Add(-o.width))
	}
	// A regression that fills much of the data contaminates the baseline so
	// that its start is found late: the best single split of the whole
	// series before the alert says where it really began.
	// The split is looked for only after the last departure that
	// recovered: an earlier episode that began and ended before the
	// candidate is no part of this one (two back-to-back episodes,
	// TestBaselineHoldingAnEarlierEpisode).
	lo := o.afterRecovered(i)
	if s := SplitPoint(active[lo:], o.alertAt, d.sig) + lo; s >= lo && s < i && active[s].At.Before(at) && offAfter(active[s:i], o.alertAt, baselineOf(o.backward(active[s].At), m), m, d.sig) {
		early := baselineOf(o.backward(active[s].At), m)
		if !early.enough(m) {
			return o.short(early, fmt.Sprintf("baseline %d min (%s sampled requests) before the regression began near %s, %s: onset unknown",
				early.minutes, fmtF(early.requests), active[s].At.Format(time.RFC3339), needText(m)))
		}
		at, base = active[s].At, early
		if s > 0 {
			at = maxTime(active[s-1].At.Add(time.Minute), at.Add(-o.width))
		}
	}
	at = at.UTC()
	return Onset{
		At: &at, Signal: d.sig, BaselineErrorRate: base.errRate, BaselineP95Ms: nanZero(base.p95),
		ErrorThreshold: base.errThr, P95ThresholdMs: infZero(base.p95Thr),
		BaselineFrom: base.from, BaselineMinutes: base.minutes, BaselineRequests: base.requests, BucketMinutes: o.w,
		Reason: fmt.Sprintf("%s left its baseline at %s and stayed off for %d buckets of %d min (baseline %d min, %s sampled requests)",
			d.sig, at.Format(time.RFC3339), d.n, o.w, base.minutes, fmtF(base.requests)),
	}
}

// afterRecovered is the index right after the last minute before i that
// belongs to a departure that recovered (0 when none does).
func (o *onsetSearch) afterRecovered(i int) int {
	if mutant.Off(mutant.SandboxEpisodeSplit) {
		return 0
	}
	for j := i - 1; j >= 0; j-- {
		if o.excluded[j] {
			return j + 1
		}
	}
	return 0
}

// SplitPoint is the index of the minute that best splits the series before
// alertAt into a lower and a higher part of sig: the binomial likelihood
// ratio of errors, or the CUSUM of signs around the median p95; -1 when
// there is nothing to split.
func SplitPoint(active []Minute, alertAt time.Time, sig string) int {
	n := 0
	for n < len(active) && !active[n].At.After(alertAt) {
		n++
	}
	if n < 2 {
		return -1
	}
	switch sig {
	case "error_rate":
		return splitErrors(active[:n])
	case "p95":
		return splitP95(active[:n])
	}
	return -1
}

// splitErrors is the split of the binomial likelihood ratio of errors with
// the higher rate after it, or -1.
func splitErrors(active []Minute) int {
	if len(active) == 0 {
		return -1
	}
	at, _ := BestErrorSplit(active, active[len(active)-1].At)
	return at
}

// splitP95 is the split of the CUSUM of signs around the median p95 with
// the higher part after it, or -1.
func splitP95(active []Minute) int {
	var p []float64
	for _, x := range active {
		if !math.IsNaN(x.P95Ms) {
			p = append(p, x.P95Ms)
		}
	}
	if len(p) < 2 {
		return -1
	}
	med := Median(p)
	best, at, cum := 0.0, -1, 0.0
	for s := 1; s < len(active); s++ {
		x := active[s-1].P95Ms
		switch {
		case math.IsNaN(x):
		case x > med:
			cum++
		case x < med:
			cum--
		}
		if -cum > best {
			best, at = -cum, s
		}
	}
	return at
}

// offAfter reports whether the minutes from the split to the candidate (and
// not after alertAt), pooled, are off the baseline before the split in sig:
// a split that is only noise is not.
func offAfter(after []Minute, alertAt time.Time, base baseline, m Margins, sig string) bool {
	var b bucket
	for _, x := range after {
		if x.At.After(alertAt) {
			break
		}
		b.minutes = append(b.minutes, x)
		b.requests += x.Requests
		b.errors += x.Errors
	}
	bs := []bucket{b}
	finish(bs)
	return base.offAs(bs[0], m, sig)
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func before(bs []bucket, t time.Time) []bucket {
	for i, b := range bs {
		if !b.at.Before(t) {
			return bs[:i]
		}
	}
	return bs
}

func nanZero(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}

func infZero(v float64) float64 {
	if math.IsInf(v, 0) {
		return 0
	}
	return v
}
