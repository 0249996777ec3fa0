package tools

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"agentk/platform/mutant"
	"agentk/services/sandbox/internal/signoz"
)

// Fewer calls (issue 35, shape (a) of the held-out twin): a callee whose
// error rate rose only because it is called less since the onset (the
// affected service fails before it calls it) while its failures per minute
// stayed where they were (a cron's steady failures now meet fewer calls) left
// its baseline without failing more: it is no shared cause. It is judged on
// the callee's requests a minute (its own series, alternatives) and its
// failing spans a minute (an error, or a duration at or above its own
// onset's p95 threshold: failingCountQueries), so a p95 onset of a mix that
// lost its fast calls is read the same way. An unmeasured callee stays
// co-regressed (fail closed).
const (
	// FewerCallsRatio is the most a callee's request rate since its onset
	// may be of its baseline's for it to be called less.
	FewerCallsRatio = 0.8
	// FewerCallsRise is the rise of the callee's failures per minute the
	// data must rule out: its failures since the onset are fewer than a
	// rate FewerCallsRise × its baseline's would give with chance below
	// FewerCallsAlpha (Poisson). Absence of evidence is not enough: a thin
	// series that cannot rule the rise out stays co-regressed.
	FewerCallsRise  = 1.5
	FewerCallsAlpha = 0.05
)

// callsFell is a co-regressed service's requests and errors per minute in its
// baseline and since its onset (sampled counts).
type callsFell struct {
	reqBefore, reqSince, errBefore, errSince float64
	minutesBefore, minutesSince              float64
}

// callsFellOf measures ms around its onset o: the baseline [o.BaselineFrom,
// o.At) and [o.At, the last minute with data]; nil when either is empty.
func callsFellOf(ms []Minute, o Onset) *callsFell {
	if o.At == nil || o.BaselineFrom.IsZero() {
		return nil
	}
	var c callsFell
	var last time.Time
	for _, m := range ms {
		switch {
		case m.At.Before(o.BaselineFrom):
		case m.At.Before(*o.At):
			c.reqBefore, c.errBefore = c.reqBefore+m.Requests, c.errBefore+m.Errors
		default:
			c.reqSince, c.errSince = c.reqSince+m.Requests, c.errSince+m.Errors
			if m.At.After(last) {
				last = m.At
			}
		}
	}
	c.minutesBefore = o.At.Sub(o.BaselineFrom).Minutes()
	c.minutesSince = last.Sub(*o.At).Minutes() + 1
	if c.minutesBefore < 1 || last.IsZero() || c.reqBefore <= 0 {
		return nil
	}
	return &c
}

// fewerCalls reports whether the callee's regression is fewer calls with no
// more failures: its request rate fell to at most FewerCallsRatio of its
// baseline's, and its failures since the onset rule out a rise of
// FewerCallsRise per minute at FewerCallsAlpha.
func fewerCalls(c *callsFell) bool {
	if c == nil || c.minutesSince < 1 {
		return false
	}
	load := (c.reqSince / c.minutesSince) / (c.reqBefore / c.minutesBefore)
	if load > FewerCallsRatio {
		return false
	}
	lambda := FewerCallsRise * c.errBefore / c.minutesBefore * c.minutesSince
	if mutant.Off(mutant.SandboxDownstreamFewerCalls) {
		return true
	}
	return poissonAtMost(c.errSince, lambda) < FewerCallsAlpha
}

// poissonAtMost is P(X ≤ k) for X ~ Poisson(lambda).
func poissonAtMost(k, lambda float64) float64 {
	if lambda <= 0 {
		return 1
	}
	n := int(math.Floor(k))
	var sum float64
	for i := 0; i <= n; i++ {
		lg, _ := math.Lgamma(float64(i) + 1)
		sum += math.Exp(float64(i)*math.Log(lambda) - lambda - lg)
	}
	return math.Min(sum, 1)
}

// fewerCallsText says what fewerCalls read of one callee.
func fewerCallsText(svc string, c *callsFell) string {
	return fmt.Sprintf("%s (called %sx its baseline rate, %s failing spans a minute against %s before: it left its baseline for fewer calls, not more failures)",
		svc, fmtF(round((c.reqSince/c.minutesSince)/(c.reqBefore/c.minutesBefore))), fmtF(round(c.errSince/c.minutesSince)), fmtF(round(c.errBefore/c.minutesBefore)))
}

// fewerLine says which co-regressed services were only called less.
func fewerLine(svc string, fewer []string, fell map[string]*callsFell) string {
	var parts []string
	for _, f := range fewer {
		parts = append(parts, fewerCallsText(f, fell[f]))
	}
	return "services called less since the onset whose failures a minute did not rise (downstream of " + svc + ", not a shared cause): " + strings.Join(parts, ", ")
}

// failingCountQueries ask, for each examined service, its failing spans a
// minute (an error, or a duration at or above its own onset's p95
// threshold) over the overview's window: what fewerCalls compares.
func failingCountQueries(c Call, st overviewState) []Query {
	ow := OnsetWindow(c)
	var qs []Query
	for _, svc := range st.examined {
		qs = append(qs, Query{Name: "failing_count_" + svc, Optional: true, Request: signoz.NewRequest(signoz.RequestTimeSeries, ow.From.UnixMilli(), ow.To.UnixMilli(),
			signoz.BuilderQuery{Name: "A", Signal: signoz.SignalTraces, StepInterval: 60, Filter: signoz.Filter{Expression: and(failing(svc, st.alt.thresholds[svc]), notMarker)},
				Aggregations: []signoz.Aggregation{{Expression: "count()"}}})})
	}
	return qs
}

// fellOf reads failingCountQueries' answers: each examined service's
// requests (its own series) and failing spans a minute around its onset. A
// refused or unreadable answer leaves the service out (not fewer calls).
func fellOf(st overviewState, resps []signoz.Response) (map[string]*callsFell, error) {
	out := map[string]*callsFell{}
	for i, svc := range st.examined {
		if i >= len(resps) || resps[i].Refused != "" {
			continue
		}
		counts, err := perMinute(resps[i], resps[i])
		if err != nil {
			return nil, err
		}
		failing := map[int64]float64{}
		for _, m := range counts {
			failing[m.At.UnixMilli()] = m.Requests
		}
		series := slices.Clone(st.alt.series[svc])
		for j := range series {
			series[j].Errors = failing[series[j].At.UnixMilli()]
		}
		out[svc] = callsFellOf(series, st.alt.onsets[svc])
	}
	return out, nil
}
