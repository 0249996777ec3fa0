package facts

import (
	"maps"
	"math"
	"slices"
	"strconv"
)

// Round rounds to 3 decimals; NaN and infinities are left as they are.
func Round(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return f
	}
	return math.Round(f*1000) / 1000
}

// round is Round by the name the files that moved from tools call it.
func round(f float64) float64 { return Round(f) }

// Format is f rounded to 3 decimals in its shortest form, as the facts'
// reasons and tools' text print numbers.
func Format(f float64) string { return strconv.FormatFloat(Round(f), 'f', -1, 64) }

// fmtF is Format by the name the files that moved from tools call it.
func fmtF(f float64) string { return Format(f) }

// Median is the median of v (NaN for none); v is not reordered.
func Median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// sortedKeys is m's keys in order, so that ties break the same way on every run.
func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
