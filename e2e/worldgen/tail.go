package worldgen

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/fnv"
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
	// Reading is how the sampler decides which 1 in Keep of the other
	// traces it keeps (TailReadings): at random (ReadAtRandom), or
	// consistently by a function of the trace id, so that every collector
	// agrees: a salt of the operator's own (ReadOwnSalt, which nothing
	// outside the collector's configuration can read), the OpenTelemetry
	// Go SDK's lower 64 bits, its earlier releases' upper 64 bits, the
	// tail_sampling processor's probabilistic policy with its default salt,
	// or the W3C randomness of the probabilistic_sampler.
	Reading string
	// headRate and headSampling are the world's load and head sampler
	// before the tail sampler replaced it (WithoutTail).
	headRate     float64
	headSampling int
	// salt is the operator's own salt (ReadOwnSalt).
	salt string
}

// The log sampling of a TailSampled world (TailSampler.Logs).
const (
	LogsWithTraces = ""
	LogsRequests   = "requests"
	LogsErrors     = "errors"
)

// The readings of a tail sampler's share of the other traces
// (TailSampler.Reading).
const (
	ReadAtRandom    = "random"
	ReadOwnSalt     = "operator_salt"
	ReadLow64       = "trace_id_low64"
	ReadHigh64      = "trace_id_high64"
	ReadDefaultSalt = "tail_default_salt"
	ReadW3C         = "w3c_randomness"
)

// TailReadings are the readings a TailSampled world draws, each with its
// share: at random 15%, an operator's own salt 15%, the lower 64 bits 20%,
// the upper 64 bits 10%, tail_sampling's default salt 25%, the W3C
// randomness 15%.
var TailReadings = []struct {
	Name  string
	Share float64
}{{ReadAtRandom, 0.15}, {ReadOwnSalt, 0.15}, {ReadLow64, 0.20}, {ReadHigh64, 0.10}, {ReadDefaultSalt, 0.25}, {ReadW3C, 0.15}}

// drawReading draws a TailReadings name from x, uniform in [0, 1).
func drawReading(x float64) string {
	for _, r := range TailReadings {
		if x < r.Share {
			return r.Name
		}
		x -= r.Share
	}
	return TailReadings[len(TailReadings)-1].Name
}

// readTrace is the reading named of a trace id (32 hex digits) in [0, 1),
// the sampler keeping the trace when it is under 1/Keep; ok false for the
// random sampler or an id that does not parse. The operator's salt is the
// world's own (salt).
func readTrace(name, traceID, salt string) (float64, bool) {
	var id [16]byte
	if len(traceID) != 32 {
		return 0, false
	}
	if _, err := hex.Decode(id[:], []byte(traceID)); err != nil {
		return 0, false
	}
	fnvOf := func(salt string) float64 {
		h := fnv.New64a()
		h.Write([]byte(salt))
		h.Write(id[:])
		return float64(h.Sum64()) / (1 << 64)
	}
	switch name {
	case ReadLow64:
		return float64(binary.BigEndian.Uint64(id[8:])>>1) / (1 << 63), true
	case ReadHigh64:
		return float64(binary.BigEndian.Uint64(id[:8])>>1) / (1 << 63), true
	case ReadW3C:
		return 1 - float64(binary.BigEndian.Uint64(id[8:])&(1<<56-1))/(1<<56), true
	case ReadDefaultSalt:
		return fnvOf("default-hash-seed"), true
	case ReadOwnSalt:
		return fnvOf(salt), true
	}
	return 0, false
}

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
	// Then, from the same stream, how it reads its share of the rest.
	t.Reading, t.salt = drawReading(rs.Float64()), fmt.Sprintf("salt-%016x", rs.Uint64())
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
	if len(spans) == 0 || failed && t.KeepErrors || float64(last.Sub(first))/1e6 > t.ThresholdMs || t.keeps(spans[0].TraceID, e.r.IntN(t.Keep) == 0) {
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

// keeps says whether the sampler keeps a trace it would otherwise drop:
// the random sampler's coin, or the trace id's reading under 1/Keep. The
// coin is drawn whatever the reading, so that a world's other draws are as
// they were and only the kept set of its traces changes.
func (t *TailSampler) keeps(traceID string, coin bool) bool {
	r, ok := readTrace(t.Reading, traceID, t.salt)
	if !ok {
		return coin
	}
	return r < 1/float64(t.Keep)
}
