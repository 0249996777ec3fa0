package facts_test

import (
	"encoding/hex"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"agentk/services/sandbox/internal/facts"

	"github.com/stretchr/testify/require"
)

// tailWorld is a service under a tail sampler that keeps every failed trace,
// every trace slower than slow and, of the rest, those keep says: its
// arrivals a minute in the baseline (base) and since the onset (since), the
// share of them that fail since the onset (fail) and the share of the
// clean ones that are slow (slowShare).
type tailWorld struct {
	base, since     float64
	fail, slowShare float64
	keep            func(r *rand.Rand, id [16]byte) bool
	limit           int
}

// r is the reading named, for keep.
func reading(name string) func(id [16]byte) float64 {
	for _, r := range facts.SamplerReadings {
		if r.Name == name {
			return r.R
		}
	}
	panic(name)
}

// consistent keeps a clean trace when the reading named is under q.
func consistent(name string, q float64) func(*rand.Rand, [16]byte) bool {
	r := reading(name)
	return func(_ *rand.Rand, id [16]byte) bool { return r(id) < q }
}

// atRandom keeps a clean trace with chance q, whatever its id.
func atRandom(q float64) func(*rand.Rand, [16]byte) bool {
	return func(r *rand.Rand, _ [16]byte) bool { return r.Float64() < q }
}

// salted keeps a clean trace by FNV-1a of a salt the readings do not know.
func salted(q float64) func(*rand.Rand, [16]byte) bool {
	return func(_ *rand.Rand, id [16]byte) bool {
		h := fnv.New64a()
		h.Write([]byte("our-own-salt"))
		h.Write(id[:])
		return float64(h.Sum64())/(1<<64) < q
	}
}

// samples draws the world's kept entry spans over a 10-minute baseline
// and the 10 minutes since the onset, each cut to its latest limit.
func (w tailWorld) samples(seed uint64) (facts.TraceSample, facts.TraceSample) {
	r := rand.New(rand.NewPCG(seed, 7))
	t0 := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	window := func(from time.Time, perMin, fail float64) facts.TraceSample {
		var kept []facts.SampledTrace
		n := int(perMin * 10)
		for range n {
			var id [16]byte
			for i := range id {
				id[i] = byte(r.IntN(256))
			}
			t := facts.SampledTrace{TraceID: hex.EncodeToString(id[:]), At: from.Add(time.Duration(r.Float64() * float64(10*time.Minute))),
				Error: r.Float64() < fail, Duration: time.Duration(20+r.IntN(80)) * time.Millisecond}
			slow := r.Float64() < w.slowShare
			if slow {
				t.Duration = 3 * time.Second
			}
			if t.Error || slow || w.keep(r, id) {
				kept = append(kept, t)
			}
		}
		slices.SortFunc(kept, func(a, b facts.SampledTrace) int { return b.At.Compare(a.At) })
		if len(kept) > w.limit {
			kept = kept[:w.limit]
		}
		return facts.TraceSample{Traces: kept, From: from, To: from.Add(10 * time.Minute), Limit: w.limit}
	}
	return window(t0, w.base, 0.002), window(t0.Add(11*time.Minute), w.since, w.fail)
}

func TestConsistentArrivals(t *testing.T) {
	cases := []struct {
		name    string
		w       tailWorld
		reading string // "" when nothing may be believed
		// below says whether the upper bound stays under the gate's
		// surge ratio (2.5): arrivals that held, not a surge.
		below bool
	}{
		{"a release failing half the requests, the Go SDK's lower bits, 1 in 10", tailWorld{base: 300, since: 300, fail: 0.5, slowShare: 0.01, keep: consistent("trace_id_low64", 0.1), limit: 1000}, "trace_id_low64", true},
		{"the same under the upper bits, 12%", tailWorld{base: 200, since: 210, fail: 0.6, slowShare: 0.01, keep: consistent("trace_id_high64", 0.12), limit: 1000}, "trace_id_high64", true},
		{"the W3C randomness (probabilistic_sampler), 1 in 20", tailWorld{base: 600, since: 600, fail: 0.4, slowShare: 0.01, keep: consistent("w3c_randomness", 0.05), limit: 1000}, "w3c_randomness", true},
		{"tail_sampling's probabilistic policy, default salt, 8%", tailWorld{base: 400, since: 380, fail: 0.7, slowShare: 0.02, keep: consistent("tail_default_salt", 0.08), limit: 1000}, "tail_default_salt", true},
		{"a latency policy keeping many slow clean traces (a third of the kept clean ones)", tailWorld{base: 300, since: 300, fail: 0.5, slowShare: 0.05, keep: consistent("trace_id_low64", 0.1), limit: 1000}, "trace_id_low64", true},
		{"a low-traffic service: the samples are not cut", tailWorld{base: 40, since: 40, fail: 0.5, slowShare: 0.01, keep: consistent("trace_id_low64", 0.2), limit: 1000}, "trace_id_low64", true},
		// The trap: a surge beyond capacity under the same sampler (the
		// excess fails) is a surge of the traces the reading keeps.
		{"a 4x surge beyond capacity, the excess failing, same sampler", tailWorld{base: 300, since: 1200, fail: 0.75, slowShare: 0.01, keep: consistent("trace_id_low64", 0.1), limit: 1000}, "trace_id_low64", false},
		{"a 3x surge beyond capacity, tail_sampling's default salt", tailWorld{base: 400, since: 1200, fail: 0.6, slowShare: 0.01, keep: consistent("tail_default_salt", 0.08), limit: 1000}, "tail_default_salt", false},
		// No structure: nothing believed.
		{"a sampler keeping clean traces at random", tailWorld{base: 300, since: 300, fail: 0.5, slowShare: 0.01, keep: atRandom(0.1), limit: 1000}, "", false},
		{"a hash with a salt not among the readings", tailWorld{base: 300, since: 300, fail: 0.5, slowShare: 0.01, keep: salted(0.1), limit: 1000}, "", false},
		{"no sampler: every trace kept, uniform trace ids", tailWorld{base: 20, since: 20, fail: 0.5, keep: atRandom(1), limit: 1000}, "", false},
		{"too small a baseline sample", tailWorld{base: 3, since: 3, fail: 0.5, keep: consistent("trace_id_low64", 0.5), limit: 1000}, "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for seed := range uint64(5) {
				got := facts.ConsistentArrivals(tc.w.samples(seed))
				if tc.reading == "" {
					require.Nil(t, got, "seed %d", seed)
					continue
				}
				require.NotNil(t, got, "seed %d", seed)
				require.Equal(t, tc.reading, got.Reading, "seed %d", seed)
				require.LessOrEqual(t, got.Chance, facts.MaxReadingChance)
				require.GreaterOrEqual(t, got.Upper, got.Ratio)
				if tc.below {
					require.Less(t, got.Upper, 2.5, "seed %d: %+v", seed, *got)
				} else {
					require.GreaterOrEqual(t, got.Upper, 2.5, "seed %d: %+v", seed, *got)
					require.Greater(t, got.Ratio, 2.0, "seed %d: %+v", seed, *got)
				}
			}
		})
	}
}

// TestUniformTraceIDsShowNoReading feeds trace ids drawn uniformly, all
// clean and fast, as a sampler that kept every trace (or kept them at
// random) would leave: no reading may show, whatever the sample's size.
func TestUniformTraceIDsShowNoReading(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 53))
	t0 := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	for _, n := range []int{20, 50, 200, 1000} {
		for range 50 {
			var s facts.TraceSample
			s.From, s.To, s.Limit = t0, t0.Add(10*time.Minute), 5000
			for i := range n {
				var id [16]byte
				for j := range id {
					id[j] = byte(r.IntN(256))
				}
				s.Traces = append(s.Traces, facts.SampledTrace{TraceID: hex.EncodeToString(id[:]), At: t0.Add(time.Duration(i) * time.Second / 2), Duration: time.Duration(1+r.IntN(100)) * time.Millisecond})
			}
			since := s
			since.From, since.To = t0.Add(11*time.Minute), t0.Add(21*time.Minute)
			require.Nil(t, facts.ConsistentArrivals(s, since), "n %d", n)
		}
	}
}
