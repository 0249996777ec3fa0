package facts

import (
	"math"
	"time"

	"agentk/platform/mutant"
)

// Fewer calls (issue 35, shape (a) of the held-out twin): a callee whose
// error rate rose only because it is called less since the onset (the
// affected service fails before it calls it) while its failures per minute
// stayed where they were (a cron's steady failures now meet fewer calls) left
// its baseline without failing more: it is no shared cause. It is judged on
// the callee's requests a minute (its own series, alternatives) and its
// failing spans a minute (an error, or a duration at or above its own
// onset's p95 threshold: tools' failingCountQueries), so a p95 onset of a mix that
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

// CallsFell is a co-regressed service's requests and errors (sampled
// counts) in its baseline and since its onset, and the minutes of each.
type CallsFell struct {
	ReqBefore, ReqSince, ErrBefore, ErrSince float64
	MinutesBefore, MinutesSince              float64
}

// CallsFellOf measures ms around its onset o: the baseline [o.BaselineFrom,
// o.At) and [o.At, the last minute with data]; nil when either is empty.
func CallsFellOf(ms []Minute, o Onset) *CallsFell {
	if o.At == nil || o.BaselineFrom.IsZero() {
		return nil
	}
	var c CallsFell
	var last time.Time
	for _, m := range ms {
		switch {
		case m.At.Before(o.BaselineFrom):
		case m.At.Before(*o.At):
			c.ReqBefore, c.ErrBefore = c.ReqBefore+m.Requests, c.ErrBefore+m.Errors
		default:
			c.ReqSince, c.ErrSince = c.ReqSince+m.Requests, c.ErrSince+m.Errors
			if m.At.After(last) {
				last = m.At
			}
		}
	}
	c.MinutesBefore = o.At.Sub(o.BaselineFrom).Minutes()
	c.MinutesSince = last.Sub(*o.At).Minutes() + 1
	if c.MinutesBefore < 1 || last.IsZero() || c.ReqBefore <= 0 {
		return nil
	}
	return &c
}

// FewerCalls reports whether the callee's regression is fewer calls with no
// more failures: its request rate fell to at most FewerCallsRatio of its
// baseline's, and its failures since the onset rule out a rise of
// FewerCallsRise per minute at FewerCallsAlpha.
func FewerCalls(c *CallsFell) bool {
	if c == nil || c.MinutesSince < 1 {
		return false
	}
	load := (c.ReqSince / c.MinutesSince) / (c.ReqBefore / c.MinutesBefore)
	if load > FewerCallsRatio {
		return false
	}
	lambda := FewerCallsRise * c.ErrBefore / c.MinutesBefore * c.MinutesSince
	if mutant.Off(mutant.SandboxDownstreamFewerCalls) {
		return true
	}
	return poissonAtMost(c.ErrSince, lambda) < FewerCallsAlpha
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
