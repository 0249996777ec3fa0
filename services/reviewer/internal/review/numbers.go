package review

import (
	"math"
	"regexp"
	"strconv"
	"strings"

	"agentk/contracts"
	"agentk/contracts/table"
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
	claimNumber = regexp.MustCompile(`(?i)(^|[^\p{L}\p{N}_.\-])-?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?:\s?(ms|milliseconds?|µs|us|ns|s|secs?|seconds?|min|minutes?|%|x|×|req/s|rps))?`)
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
	case "req/s", "rps":
		return "req/s"
	}
	return ""
}

// Unit families. A claim's number and an evidence number match only when their
// units do: a count is not a duration, a duration is not a percentage.
const (
	unitNone     = ""         // a count or a plain number
	unitFraction = "fraction" // a rate or ratio written as a fraction (error_rate 0.061)
)

// scales are the factors by which a quantity in a unit may appear in
// evidence of the unit ev: 2.3s may be recorded as 2.3 (s), 2300 (ms), 2.3e9
// (ns); 31% as 31 (%) or 0.31 (a fraction). Nil means the units do not match.
func scales(claim, ev string) []float64 {
	toS := map[string]float64{"s": 1, "ms": 1e-3, "us": 1e-6, "ns": 1e-9, "min": 60}
	if a, ok := toS[claim]; ok {
		if b, ok := toS[ev]; ok {
			return []float64{a / b}
		}
		return nil
	}
	switch {
	case claim == ev:
		return []float64{1}
	case claim == "%" && ev == unitFraction:
		return []float64{1e-2}
	case claim == "x" && (ev == unitNone || ev == unitFraction):
		// "12x" is a plain multiplier: 12 retries per call, a traffic ratio of 12.
		return []float64{1}
	}
	return nil
}

// Number is one number token of an evidence record, with its unit.
type Number struct {
	Value float64
	Unit  string
}

var (
	// a number token: not part of a word or an id (a letter, digit, '_', '.'
	// or '-' joined to it before), optionally followed by a unit.
	evidenceNumber = regexp.MustCompile(`(?i)-?\d+(?:\.\d+)?(?:e[-+]?\d+)?(ms|µs|us|ns|s|min|%|x|req/s|rps)?`)
	// the key a value is written under, just before it: "p95_ms":240, p95_ms: 240, in_use=20.
	keyBefore = regexp.MustCompile(`([A-Za-z][A-Za-z0-9_.]*)"?(?:\s*[:=]\s*|\s+)$`)
)

// EvidenceNumbers are the number tokens of an evidence record, each with its
// unit: the facts the sandbox computed, and every number written as a token of
// its compact text. Digits inside an id, a hex trace id, a version or a
// timestamp are not numbers; a value quoted as a whole string is an id, not a
// number. A token's unit is its suffix (100ms, 31%, 1.05x) or, for a bare
// value, the key it is written under (p95_ms → ms, error_rate → a fraction).
// Facts.Numbers is not used: it is the same text's numbers without their units.
func EvidenceNumbers(e contracts.EvidenceV1) []Number {
	var out []Number
	f := e.Facts
	if f.RequestCount != nil {
		out = append(out, Number{float64(*f.RequestCount), unitNone})
	}
	if f.ErrorCount != nil {
		out = append(out, Number{float64(*f.ErrorCount), unitNone})
	}
	if f.ErrorRate != nil {
		out = append(out, Number{*f.ErrorRate, unitFraction})
	}
	if f.P95Ms != nil {
		out = append(out, Number{*f.P95Ms, "ms"})
	}
	if f.TrafficRatio != nil {
		out = append(out, Number{*f.TrafficRatio, "x"})
	}
	return append(out, textNumbers(e.Compact)...)
}

// embedded reports whether match m is part of a longer token (a word, an
// id, a version, a decimal) or a quoted id or version ("12345").
func embedded(text string, m []int) bool {
	start, end := m[0], m[1]
	if start > 0 && joins(text[start-1]) || text[start] == '-' && start > 0 && wordByte(text[start-1]) {
		return true
	}
	if end < len(text) && (wordByte(text[end]) || text[end] == '.' && end+1 < len(text) && wordByte(text[end+1]) || text[end] == '-' && m[2] < 0) {
		return true
	}
	return start > 0 && end < len(text) && text[start-1] == '"' && text[end] == '"'
}

// textNumbers are the number tokens of evidence text, times blanked out. A
// data block is read in its one-object-per-line form (table.Legacy), where
// every value is written after its key: a table row's values have no key
// beside them, and the key gives a bare value its unit.
func textNumbers(compact string) []Number {
	var out []Number
	text := timeLike.ReplaceAllStringFunc(table.Legacy(compact), func(m string) string { return strings.Repeat(" ", len(m)) })
	for _, m := range evidenceNumber.FindAllStringSubmatchIndex(text, -1) {
		if n, ok := numberAt(text, m); ok {
			out = append(out, n)
		}
	}
	return out
}

// numberAt reads the number token of match m (whole match, unit group) in
// text, unless it is part of a longer token or a quoted id.
func numberAt(text string, m []int) (Number, bool) {
	start, end := m[0], m[1]
	if embedded(text, m) {
		return Number{}, false
	}
	num := text[start:end]
	unit := ""
	if m[2] >= 0 {
		unit = normUnit(strings.ToLower(text[m[2]:m[3]]))
		num = text[start:m[2]]
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return Number{}, false
	}
	if m[2] < 0 {
		unit = unitOfKey(text[max(0, start-48):start])
	}
	return Number{v, unit}, true
}

// joins reports whether c, just before a digit, makes the digit part of a
// longer token: a word, an id (ev-3bc0…), a version (v2) or a decimal.
func joins(c byte) bool { return wordByte(c) || c == '.' }

// unitOfKey reads the unit of a bare value from the key written just before
// it in before: p95_ms → ms, duration_nano → ns, error_rate → a fraction.
func unitOfKey(before string) string {
	m := keyBefore.FindStringSubmatch(before)
	if m == nil {
		return unitNone
	}
	k := strings.ToLower(m[1])
	switch {
	case strings.HasSuffix(k, "_ms") || strings.HasSuffix(k, ".ms") || k == "ms":
		return "ms"
	case strings.HasSuffix(k, "_nano") || strings.HasSuffix(k, "_ns"):
		return "ns"
	case strings.HasSuffix(k, "_us"):
		return "us"
	case strings.HasSuffix(k, "_s") || strings.HasSuffix(k, "_seconds") || strings.HasSuffix(k, "_sec"):
		return "s"
	case strings.HasSuffix(k, "_pct") || strings.HasSuffix(k, "_percent"):
		return "%"
	case strings.HasSuffix(k, "ratio"):
		return "x"
	case strings.HasSuffix(k, "rate") || strings.HasSuffix(k, "fraction"):
		return unitFraction
	case strings.HasSuffix(k, "_rps") || strings.HasSuffix(k, "per_second"):
		return "req/s"
	}
	return unitNone
}

// Supported reports whether q appears among numbers in a unit that q's unit
// converts to, within the relative tolerance tol or the rounding of the digits
// the claim wrote.
func Supported(q Quantity, numbers []Number, tol float64) bool {
	for _, n := range numbers {
		for _, k := range scales(q.Unit, n.Unit) {
			want := q.Value * k
			slack := q.Precision * k
			v := math.Abs(n.Value)
			d := math.Abs(math.Abs(want) - v)
			if d <= slack*(1+1e-9) || d <= tol*math.Max(math.Abs(want), v) {
				return true
			}
		}
	}
	return false
}

func wordByte(r byte) bool {
	return r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
}
