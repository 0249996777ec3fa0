package worldgen

import (
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// TailSampled (issue 35, e2e/incidents-heldout4's finding 1): the collector
// samples by the trace's outcome, after it ended (a tail sampler), not at
// its start: it keeps every trace slower than a latency threshold, every
// trace with an error (or, in some worlds, treats errors like the rest), and
// 1 in Keep of the rest. Nothing in the spans says so. The kept count of a
// regression's failing or slowed traces then rises with no rise in arrivals:
// counted as requests, it reads as a surge of traffic. The right answer is
// the class's (a correct gate with the right diagnosis decides as it would
// under head sampling); the kept-count rule of the gate may fail closed on it,
// and a miss is counted as a miss.
const TailSampled Variant = "tail-sampled"

// TailSampler is a TailSampled world's sampler.
type TailSampler struct {
	// ThresholdMs: a trace longer than this (its first span's start to its
	// last span's end) is always kept.
	ThresholdMs float64
	// Keep: 1 in Keep of the other traces is kept.
	Keep int
	// KeepErrors: a trace with a failing span is always kept (else it is
	// sampled like the rest unless it is slow).
	KeepErrors bool
	// Logs says which of the affected service's request log records the
	// sampler leaves alone when it drops their trace: none (LogsWithTraces,
	// the logs are sampled with the spans), every request's access line
	// (LogsRequests: the service logs every request, unsampled, the only
	// arrivals source the sampler does not touch), or its error lines only
	// (LogsErrors).
	Logs string
	// headRate and headSampling are the world's load and head sampler
	// before the tail sampler replaced it (WithoutTail).
	headRate     float64
	headSampling int
}

// The log sampling of a TailSampled world (TailSampler.Logs).
const (
	LogsWithTraces = ""
	LogsRequests   = "requests"
	LogsErrors     = "errors"
)

// TailShare is the share of worlds drawn with TailSampled.
const TailShare = 0.15

// maxTailArrivals bounds the arrivals a minute a TailSampled world
// generates (most of them dropped), so a world stays a few megabytes
// however many of them a regression keeps.
const maxTailArrivals = 240.0

// drawTail draws TailSampled from its own stream rs, so that every other
// world, and every other draw of this one, is as it was. Only a world that
// holds the documented minimum of evidence at its head-sampled density is
// drawn tail-sampled (the variant must not move a verdict by the evidence
// rule; a tail sampler keeps at least that density), of at most 8 hours
// (its arrivals are generated in full), not sparse. The arrivals are the
// stored rate times Keep, at most maxTailArrivals a minute, so the baseline
// keeps about the density the world drew.
func (w *World) drawTail(rs *rand.Rand) {
	if rs.Float64() >= TailShare || w.Duration() > 8*time.Hour || w.Has(SparseHistory) || !w.enoughEvidence() {
		return
	}
	slowest := 0.0
	for _, ep := range w.Topo.Endpoints {
		slowest = math.Max(slowest, ep.BaseMs)
	}
	t := &TailSampler{
		ThresholdMs: math.Round(slowest * logUniform(rs, 2, 15)),
		Keep:        int(math.Round(logUniform(rs, 2, 30))),
		KeepErrors:  rs.Float64() < 0.8,
	}
	arrivals := math.Min(w.StoredPerMinute()*float64(t.Keep), maxTailArrivals)
	rate, sampling := w.Rate, w.Sampling
	t.headRate, t.headSampling = w.Rate, w.Sampling
	w.Tail, w.Rate, w.Sampling = t, math.Ceil(arrivals/60*100)/100, 1
	if !w.enoughEvidence() {
		w.Tail, w.Rate, w.Sampling = nil, rate, sampling
		return
	}
	w.add(TailSampled)
	// Last, from the same stream, which logs escape the sampler: drawn
	// after everything else, so a world drawn before it is the same world
	// with the same spans.
	switch x := rs.Float64(); {
	case x < 0.4:
		t.Logs = LogsRequests
	case x < 0.55:
		t.Logs = LogsErrors
	}
}

// WithoutTail is w as drawn before its tail sampler (the head sampler,
// the variant gone): a world a test pinned before TailSampled existed
// (e2e's strayErrors) stays the world it pinned, byte for byte.
func (w World) WithoutTail() World {
	if w.Tail == nil {
		return w
	}
	w.Rate, w.Sampling, w.Tail = w.Tail.headRate, w.Tail.headSampling, nil
	w.Variants = slices.DeleteFunc(slices.Clone(w.Variants), func(v Variant) bool { return v == TailSampled })
	w.Expect = expect(w)
	return w
}

// ArrivalsPerMinute is how many requests of the affected service a minute
// the emitter generates before the onset: the stored ones under head
// sampling, every arrival under a tail sampler (which drops most after).
func (w World) ArrivalsPerMinute() float64 {
	if w.Tail != nil {
		return w.Rate * 60
	}
	return w.StoredPerMinute()
}

// tailKeep reports whether the tail sampler keeps the trace whose spans
// and logs the emitter wrote from spans[ns:] and logs[nl:], and drops it
// when not: its spans, and its logs but those the world's log sampling
// leaves alone (TailSampler.Logs). Under head
// sampling every generated trace is kept.
func (e *emitter) tailKeep(ns, nl int) {
	t := e.w.Tail
	if t == nil {
		return
	}
	spans := e.out.Spans[ns:]
	var first, last time.Time
	failed := false
	for i, s := range spans {
		end := s.at.Add(time.Duration(s.DurationNano))
		if i == 0 || s.at.Before(first) {
			first = s.at
		}
		if end.After(last) {
			last = end
		}
		failed = failed || s.HasError
	}
	if len(spans) == 0 || failed && t.KeepErrors || float64(last.Sub(first))/1e6 > t.ThresholdMs || e.r.IntN(t.Keep) == 0 {
		return
	}
	kept := e.out.Logs[:nl]
	for _, l := range e.out.Logs[nl:] {
		if t.Logs == LogsRequests && l.kind == logRequest || t.Logs == LogsErrors && l.kind == logFailure {
			kept = append(kept, l)
		}
	}
	e.out.Spans, e.out.Logs = e.out.Spans[:ns], kept
}
