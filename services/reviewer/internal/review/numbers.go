package review

import (
	"math"
	"regexp"
	"strconv"
	"strings"

	"agentk/contracts"
)

// Quantity is one number a claim states, with its unit ("" when none).
type Quantity struct {
	Text  string
	Value float64
	Unit  string
	// Precision is half the place value of the last digit written: "2.3"
	// may stand for anything that rounds to it.
	Precision float64
}

var (
	// timestamps and clock times are not quantities: markers and onsets are
	// checked by the gate from facts, never from a claim's words.
	timeLike = regexp.MustCompile(`\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?|\b\d{1,2}:\d{2}(:\d{2})?\b|\d{4}-\d{2}-\d{2}`)
	// a number that does not continue a word (p95, v2, 5xx, id 4bf9…).
	claimNumber = regexp.MustCompile(`(?i)(^|[^\p{L}\p{N}_.\-])-?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?:\s?(ms|milliseconds?|µs|us|ns|s|secs?|seconds?|min|minutes?|%|x|×))?`)
	anyNumber   = regexp.MustCompile(`\d+(?:\.\d+)?(?:[eE][-+]?\d+)?`)
)

// Quantities extracts the numbers a claim states. Numbers that are part of a
// word (p95, v2, 5xx, hex ids) and timestamps are not quantities.
func Quantities(s string) []Quantity {
	s = timeLike.ReplaceAllString(s, " ")
	var out []Quantity
	for _, m := range claimNumber.FindAllStringSubmatchIndex(s, -1) {
		end := m[1]
		if m[8] >= 0 && end < len(s) && wordByte(s[end]) {
			// "5 xyz", "3 sessions": the letters are a word, not a unit.
			m[8], m[9] = -1, -1
			end = m[5]
			if m[6] >= 0 {
				end = m[7]
			}
		}
		// The number must end the token: "5xx" and "2nd" are words.
		if end < len(s) && s[end] != ' ' && wordByte(s[end]) {
			continue
		}
		intPart := strings.ReplaceAll(s[m[4]:m[5]], ",", "")
		frac := ""
		if m[6] >= 0 {
			frac = s[m[6]:m[7]]
		}
		v, err := strconv.ParseFloat(intPart+frac, 64)
		if err != nil {
			continue
		}
		unit := ""
		if m[8] >= 0 {
			unit = normUnit(strings.ToLower(s[m[8]:m[9]]))
		}
		prec := 0.5
		if len(frac) > 1 {
			prec = 0.5 * math.Pow(10, -float64(len(frac)-1))
		}
		out = append(out, Quantity{Text: strings.TrimSpace(s[m[4]:end]), Value: v, Unit: unit, Precision: prec})
	}
	return out
}

func normUnit(u string) string {
	switch u {
	case "ms", "millisecond", "milliseconds":
		return "ms"
	case "µs", "us":
		return "us"
	case "ns":
		return "ns"
	case "s", "sec", "secs", "second", "seconds":
		return "s"
	case "min", "minute", "minutes":
		return "min"
	case "%":
		return "%"
	case "x", "×":
		return "x"
	}
	return ""
}

// scales are the factors by which a quantity in a unit may appear in
// evidence: 2.3s may be recorded as 2.3 (s), 2300 (ms), 2.3e9 (ns); 31% as
// 31 or 0.31.
func scales(unit string) []float64 {
	switch unit {
	case "s":
		return []float64{1, 1e3, 1e6, 1e9}
	case "ms":
		return []float64{1, 1e-3, 1e3, 1e6}
	case "us":
		return []float64{1, 1e-3, 1e-6, 1e3}
	case "ns":
		return []float64{1, 1e-6, 1e-9}
	case "min":
		return []float64{1, 60, 6e4, 6e10}
	case "%":
		return []float64{1, 1e-2}
	}
	return []float64{1}
}

// EvidenceNumbers are every number an evidence record holds: its facts and
// every number written in its compact text.
func EvidenceNumbers(e contracts.EvidenceV1) []float64 {
	out := append([]float64(nil), e.Facts.Numbers...)
	f := e.Facts
	if f.RequestCount != nil {
		out = append(out, float64(*f.RequestCount))
	}
	if f.ErrorCount != nil {
		out = append(out, float64(*f.ErrorCount))
	}
	if f.ErrorRate != nil {
		out = append(out, *f.ErrorRate)
	}
	if f.P95Ms != nil {
		out = append(out, *f.P95Ms)
	}
	for _, s := range anyNumber.FindAllString(e.Compact, -1) {
		if v, err := strconv.ParseFloat(s, 64); err == nil {
			out = append(out, v)
		}
	}
	return out
}

// Supported reports whether q appears among numbers, within the relative
// tolerance tol or the rounding of the digits the claim wrote, in any unit
// q's unit converts to.
func Supported(q Quantity, numbers []float64, tol float64) bool {
	for _, k := range scales(q.Unit) {
		want := q.Value * k
		slack := q.Precision * k
		for _, n := range numbers {
			n = math.Abs(n)
			if math.IsNaN(n) || math.IsInf(n, 0) {
				continue
			}
			d := math.Abs(want - n)
			if d <= slack*(1+1e-9) || d <= tol*math.Max(math.Abs(want), n) {
				return true
			}
		}
	}
	return false
}

func wordByte(r byte) bool {
	return r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
}
