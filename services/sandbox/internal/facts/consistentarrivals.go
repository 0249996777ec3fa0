package facts

import (
	"encoding/binary"
	"encoding/hex"
	"hash/fnv"
	"math"
	"sort"
	"strings"
	"time"

	"agentk/contracts"
	"agentk/platform/mutant"
	"agentk/platform/stats"
)

// A tail sampler keeps every failing (or slow) trace and a share q of the
// others (facts.LoggedArrivals says why its kept entry spans read as a
// surge when a release fails requests). Real samplers decide that share
// CONSISTENTLY: a clean trace is kept when a fixed function R of its trace
// id is under q, so that every collector (and every span of a trace) takes
// the same decision. The traces with R(trace id) < q are then kept whatever
// their outcome: they are a uniform share q of all arrivals, failures
// included, before the onset and since alike, and their count a minute
// divided by the baseline's is the arrivals' ratio, q cancelling.
//
// Nothing declares the sampler or its reading, so the reading is shown
// against the traces, the second source: under the sampler, the kept clean
// traces (no error on the entry span) that were not kept for being slow
// all have R below q, while the failures spread over [0, 1]. The fastest
// half of the baseline sample's clean traces (ConsistentClean or more; the
// latency policy keeps slow ones whatever their R) has its median R at
// q/2 or less; were R unrelated to the sampler (a sampler that keeps at
// random, a hash salted with a salt not among the readings), the median of
// n uniform values falls at or below that threshold with the binomial tail
// P(Bin(n, threshold) >= half), which must stay under MaxReadingChance
// once multiplied by the number of readings tried. The threshold counted
// is that median, at or under q whenever more than half of those fast
// clean traces were kept for R alone; a threshold above q would count the
// failures between q and it, which rise with the failures since the onset
// and so read more arrivals, never fewer.
//
// The readings (SamplerReadings), each a deterministic function of the
// trace id into [0, 1), kept when under the ratio:
//
//   - trace_id_low64: the lower 8 bytes, big-endian, shifted right by one,
//     over 2^63: the OpenTelemetry Go SDK's TraceIDRatioBased;
//   - trace_id_high64: the same with the upper 8 bytes, that sampler's
//     earlier releases (and any sampler drawing on the leading bits);
//   - w3c_randomness: one less the lower 56 bits over 2^56, the W3C
//     trace-context randomness that the collector's probabilistic_sampler
//     (its default proportional and equalizing modes) and OpenTelemetry's
//     consistent probability sampling keep when at or above the rejection
//     threshold (1 - q) 2^56;
//   - tail_default_salt: FNV-1a 64 of "default-hash-seed" then the 16
//     trace id bytes, over 2^64, the collector tail_sampling processor's
//     probabilistic policy with its default salt.
//
// The ratio is counted in the two coverage samples of kept entry spans
// (the latest CoverageSpans of a window before the onset and of one since
// it, facts.LoggedArrivals'): a sample cut at its limit holds every kept
// entry span from its earliest one to its window's end, so its count of
// R <= threshold over that time is the arrivals' rate times the threshold.
// The bound: given n = a + b such traces (a since the onset over Ta, b in
// the baseline over Tb), a is binomial with p = rho Ta / (rho Ta + Tb);
// Upper is rho at the one-sided (1 - ConsistentAlpha) Clopper-Pearson bound
// on p, and the gate lifts a kept-span surge only when Upper stays under
// its surge ratio. A surge beyond capacity under the same sampler is a
// surge of R <= threshold traces and is read as such.

// Consistent-arrivals thresholds: at least ConsistentClean fast clean
// traces in the baseline sample show the reading, whose chance under a
// uniform R (times the readings tried) is at most MaxReadingChance; each
// sample's count holds at least ConsistentCounted traces under the threshold
// in the baseline; ConsistentAlpha is the one-sided error of the ratio's
// upper bound.
const (
	ConsistentClean   = 20
	MaxReadingChance  = 1e-6
	ConsistentCounted = 20
	ConsistentAlpha   = 0.01
	// NoUpperBound is Upper when the baseline bounds nothing (every counted
	// trace is since the onset): a finite stand-in for
	// infinity, which JSON cannot carry.
	NoUpperBound = 1e6
)

// SampledTrace is one kept entry span of a coverage sample: its trace id,
// when it began, whether it failed and how long it took.
type SampledTrace struct {
	TraceID  string
	At       time.Time
	Error    bool
	Duration time.Duration
}

// TraceSample is a coverage sample: the kept entry spans of the window
// [From, To) asked with the row limit Limit (a sample of Limit rows or more
// covers only from its earliest span to To).
type TraceSample struct {
	Traces   []SampledTrace
	From, To time.Time
	Limit    int
}

// span is how long the sample covers.
func (s TraceSample) span() time.Duration {
	from := s.From
	if s.Limit > 0 && len(s.Traces) >= s.Limit {
		from = s.To
		for _, t := range s.Traces {
			if t.At.Before(from) {
				from = t.At
			}
		}
	}
	return s.To.Sub(from)
}

// SamplerReading is a named deterministic function of a trace id's 16
// bytes into [0, 1).
type SamplerReading struct {
	Name string
	R    func(id [16]byte) float64
}

// SamplerReadings are the readings ConsistentArrivals tries (the list in
// the comment above).
var SamplerReadings = []SamplerReading{
	{"trace_id_low64", func(id [16]byte) float64 { return float64(binary.BigEndian.Uint64(id[8:])>>1) / (1 << 63) }},
	{"trace_id_high64", func(id [16]byte) float64 { return float64(binary.BigEndian.Uint64(id[:8])>>1) / (1 << 63) }},
	{"w3c_randomness", func(id [16]byte) float64 {
		return 1 - float64(binary.BigEndian.Uint64(id[8:])&(1<<56-1))/(1<<56)
	}},
	{"tail_default_salt", func(id [16]byte) float64 {
		h := fnv.New64a()
		h.Write([]byte("default-hash-seed"))
		h.Write(id[:])
		return float64(h.Sum64()) / (1 << 64)
	}},
}

// traceBytes parses a 32-hex-digit trace id.
func traceBytes(id string) ([16]byte, bool) {
	var b [16]byte
	if len(id) != 32 {
		return b, false
	}
	if _, err := hex.Decode(b[:], []byte(strings.ToLower(id))); err != nil {
		return b, false
	}
	return b, true
}

// fastClean are the trace ids of the fastest half of the sample's clean
// traces (the slowest of a tie kept out).
func fastClean(s TraceSample) [][16]byte {
	var clean []SampledTrace
	for _, t := range s.Traces {
		if _, ok := traceBytes(t.TraceID); ok && !t.Error {
			clean = append(clean, t)
		}
	}
	sort.SliceStable(clean, func(i, j int) bool { return clean[i].Duration < clean[j].Duration })
	out := make([][16]byte, 0, len(clean)/2)
	for _, t := range clean[:len(clean)/2] {
		b, _ := traceBytes(t.TraceID)
		out = append(out, b)
	}
	return out
}

// readingChance is the median R of ids under the reading, and the chance
// that n uniform values have a median at or below it.
func readingChance(ids [][16]byte, r SamplerReading) (threshold, chance float64) {
	vs := make([]float64, len(ids))
	for i, id := range ids {
		vs[i] = r.R(id)
	}
	sort.Float64s(vs)
	m := (len(vs) - 1) / 2
	return vs[m], stats.BinomTail(m+1, len(vs), vs[m])
}

// countUnder counts the sample's traces whose R is at or under threshold.
func countUnder(s TraceSample, r SamplerReading, threshold float64) int {
	n := 0
	for _, t := range s.Traces {
		if b, ok := traceBytes(t.TraceID); ok && r.R(b) <= threshold {
			n++
		}
	}
	return n
}

// ConsistentArrivals is the service's inbound traffic ratio read from the
// kept entry traces a consistent sampler kept whatever their outcome
// (contracts.ConsistentArrivals); nil unless a reading shows in the
// baseline sample (the thresholds above) and both samples cover time.
func ConsistentArrivals(base, since TraceSample) *contracts.ConsistentArrivals {
	ids := fastClean(base)
	tb, ta := base.span(), since.span()
	if len(ids) < ConsistentClean || tb <= 0 || ta <= 0 {
		return nil
	}
	best, threshold, chance := -1, 0.0, 1.0
	for i, r := range SamplerReadings {
		th, p := readingChance(ids, r)
		if p*float64(len(SamplerReadings)) < chance || best < 0 {
			best, threshold, chance = i, th, p*float64(len(SamplerReadings))
		}
	}
	if chance > MaxReadingChance && !mutant.Off(mutant.SandboxConsistentArrivals) {
		return nil
	}
	r := SamplerReadings[best]
	b, a := countUnder(base, r, threshold), countUnder(since, r, threshold)
	if b < ConsistentCounted {
		return nil
	}
	ratio := (float64(a) / ta.Minutes()) / (float64(b) / tb.Minutes())
	pu := binomUpper(a, a+b, ConsistentAlpha)
	upper := NoUpperBound
	if pu < 1 {
		upper = math.Min(pu/(1-pu)*tb.Minutes()/ta.Minutes(), NoUpperBound)
	}
	return &contracts.ConsistentArrivals{Reading: r.Name, Threshold: threshold, Chance: chance, FastClean: int64(len(ids)),
		BaselineCounted: int64(b), BaselineSampled: int64(len(base.Traces)), BaselineMinutes: tb.Minutes(),
		Counted: int64(a), Sampled: int64(len(since.Traces)), Minutes: ta.Minutes(), Ratio: ratio, Upper: upper}
}

// binomUpper is the one-sided Clopper-Pearson upper bound on p at error
// alpha for k successes of n: the p at which P(X <= k) = alpha.
func binomUpper(k, n int, alpha float64) float64 {
	if k >= n {
		return 1
	}
	lo, hi := float64(k)/float64(n), 1.0
	for range 60 {
		mid := (lo + hi) / 2
		if 1-stats.BinomTail(k+1, n, mid) > alpha {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}
