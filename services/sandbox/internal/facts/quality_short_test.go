package facts

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestStudentTail holds the t tail against closed forms: one degree of
// freedom (Cauchy), two, and many (the normal).
func TestStudentTail(t *testing.T) {
	t.Parallel()
	for _, tv := range []float64{0.5, 1, 2.5, 3.71, 10} {
		require.InDelta(t, 1-2/math.Pi*math.Atan(tv), studentTail(tv*tv, 1), 1e-9, "df 1, t %v", tv)
		require.InDelta(t, 1-tv/math.Sqrt(tv*tv+2), studentTail(tv*tv, 2), 1e-9, "df 2, t %v", tv)
		require.InDelta(t, math.Erfc(tv/math.Sqrt2), studentTail(tv*tv, 1e7), 1e-5, "df 1e7, t %v", tv)
	}
	require.Equal(t, 1.0, studentTail(0, 3))
}

// shortTail is a series of per-minute values over 90 min that ends at
// synthEnd plus after minutes: a mean of 500 with noise, 4 spans a minute;
// from shiftAt on (when set) the mean is scaled by factor.
func shortTail(r *rand.Rand, after int, shiftAt time.Time, factor float64) []Minute {
	var ms []Minute
	for at := synthEnd.Add(-90 * time.Minute); at.Before(synthEnd.Add(time.Duration(after) * time.Minute)); at = at.Add(time.Minute) {
		v := 500 * (1 + 0.25*r.NormFloat64())
		if !shiftAt.IsZero() && !at.Before(shiftAt) {
			v *= factor
		}
		ms = append(ms, Minute{At: at, Requests: 4, P95Ms: v})
	}
	return ms
}

// TestQuietShortTailsShiftNothing: 150 quiet series (means that wander,
// heavy-tailed minutes among them, and value shares that wander) whose
// data ends 1 to 3 minutes after the alert place no shift: a split with 3
// or 4 minutes after it counts only by the exact small-sample test. With
// the asymptotic threshold on those short tails, some do (mutant
// sandbox.quality_short_tail).
func TestQuietShortTailsShiftNothing(t *testing.T) {
	t.Parallel()
	for seed := uint64(1); seed <= 4; seed++ {
		r := rand.New(rand.NewPCG(seed, 3503))
		var all []qualitySeries
		for i := range 150 {
			after := 1 + r.IntN(3)
			if i%2 == 0 {
				ms := shortTail(r, after, time.Time{}, 1)
				if i%4 == 0 {
					// Heavy tails: one minute in ten three times as far off.
					for j := range ms {
						if r.IntN(10) == 0 {
							ms[j].P95Ms = 500 + 3*(ms[j].P95Ms-500)
						}
					}
				}
				all = append(all, qualitySeries{key: fmt.Sprintf("app.k%d", i), ms: ms, numeric: true})
				continue
			}
			var ms []Minute
			for at := synthEnd.Add(-90 * time.Minute); at.Before(synthEnd.Add(time.Duration(after) * time.Minute)); at = at.Add(time.Minute) {
				n := float64(1 + r.IntN(4))
				e := 0.0
				for range int(n) {
					if r.Float64() < 0.15 {
						e++
					}
				}
				ms = append(ms, Minute{At: at, Requests: n, Errors: e})
			}
			all = append(all, qualitySeries{key: fmt.Sprintf("app.k%d", i), value: "v", ms: ms})
		}
		require.Empty(t, judgeQuality(all, synthEnd, DefaultMargins), "seed %d", seed)
	}
}

// TestStrongShiftWithAShortTail: a mean tripled 4 minutes before the data
// ends (3 before the alert; minutes 25% apart, so one of 4 may fall back
// to the old level's tail), or a new value on every span 3 minutes before
// it, is placed there among 20 series, where a split needed
// QualityMinMinutes after it before; a mean 20% up is not.
func TestStrongShiftWithAShortTail(t *testing.T) {
	t.Parallel()
	tokensAt, shiftAt := synthEnd.Add(-3*time.Minute), synthEnd.Add(-2*time.Minute)
	for seed := uint64(1); seed <= 8; seed++ {
		r := rand.New(rand.NewPCG(seed, 3504))
		var all []qualitySeries
		for i := range 19 {
			all = append(all, qualitySeries{key: fmt.Sprintf("app.q%d", i), ms: shortTail(r, 1, time.Time{}, 1), numeric: true})
		}
		tripled := append(all, qualitySeries{key: "gen_ai.usage.output_tokens", ms: shortTail(r, 1, tokensAt, 3), numeric: true})
		got := judgeQuality(tripled, synthEnd, DefaultMargins)
		require.Len(t, got, 1, "seed %d", seed)
		require.Equal(t, "gen_ai.usage.output_tokens", got[0].fact.Attribute)
		require.Equal(t, tokensAt, *got[0].on.At, "seed %d", seed)

		var share []Minute
		for at := synthEnd.Add(-90 * time.Minute); at.Before(synthEnd.Add(time.Minute)); at = at.Add(time.Minute) {
			x := Minute{At: at, Requests: 4}
			if !at.Before(shiftAt) {
				x.Errors = 4
			}
			share = append(share, x)
		}
		got = judgeQuality(append(all, qualitySeries{key: "app.prompt.variant", value: "b", ms: share}), synthEnd, DefaultMargins)
		require.Len(t, got, 1, "seed %d", seed)
		require.Equal(t, shiftAt, *got[0].on.At, "seed %d", seed)

		mild := append(all, qualitySeries{key: "gen_ai.usage.output_tokens", ms: shortTail(r, 1, tokensAt, 1.2), numeric: true})
		require.Empty(t, judgeQuality(mild, synthEnd, DefaultMargins), "seed %d", seed)
	}
}

// TestRankTail holds the exact Mann–Whitney tail against counts by hand:
// 3 after minutes beyond all 5 before is 1/C(8,3); one before minute
// beyond the least of them, 2/C(8,3); a fall is judged downwards.
func TestRankTail(t *testing.T) {
	t.Parallel()
	mk := func(vs ...float64) []Minute {
		var out []Minute
		for _, v := range vs {
			out = append(out, Minute{P95Ms: v})
		}
		return out
	}
	before := mk(1, 2, 3, 4, 5)
	require.InDelta(t, 1.0/56, rankTail(before, mk(10, 11, 12)), 1e-12)
	require.InDelta(t, 2.0/56, rankTail(before, mk(4.5, 11, 12)), 1e-12)
	require.InDelta(t, 1.0/56, rankTail(before, mk(0, -1, -2)), 1e-12)
	require.InDelta(t, 1, rankTail(before, mk(3, 3, 3)), 0.5)
}
