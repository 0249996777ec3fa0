package facts

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// N quiet attribute series (numeric means that only wander, value shares
// that only wander) place no shift: each split is judged at
// QualitySplitLR + 2·ln(N). Without the correction some do (mutant
// sandbox.quality_bonferroni).
func TestQuietAttributesShiftNothing(t *testing.T) {
	t.Parallel()
	for seed := uint64(1); seed <= 3; seed++ {
		r := rand.New(rand.NewPCG(seed, 35))
		var all []qualitySeries
		for i := range 150 {
			var ms []Minute
			for at := synthEnd.Add(-90 * time.Minute); at.Before(synthEnd.Add(8 * time.Minute)); at = at.Add(time.Minute) {
				n := float64(1 + r.IntN(4))
				if i%2 == 0 {
					ms = append(ms, Minute{At: at, Requests: n, P95Ms: 500 * (1 + 0.5*r.NormFloat64()/n)})
					continue
				}
				e := 0.0
				for range int(n) {
					if r.Float64() < 0.15 {
						e++
					}
				}
				ms = append(ms, Minute{At: at, Requests: n, Errors: e})
			}
			all = append(all, qualitySeries{key: fmt.Sprintf("app.k%d", i), value: "v", ms: ms, numeric: i%2 == 0})
		}
		require.Empty(t, judgeQuality(all, synthEnd, DefaultMargins), "seed %d", seed)
	}
}
