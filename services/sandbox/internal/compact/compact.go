// Package compact turns query results into the text a model reads: nulls,
// empty values and the query engine's own statistics removed, rows and
// characters capped, and every value from telemetry quoted as JSON inside one
// delimited data block, so that untrusted text (log bodies, span attributes,
// status messages) is data and never free text.
package compact

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"agentk/contracts/table"
)

// NoiseKeys are the query engine's statistics: they describe the act of
// looking, not the incident, and are removed at every depth.
var NoiseKeys = []string{
	"meta", "rowsScanned", "bytesScanned", "durationMs", "stepIntervals", "nextCursor",
	"queryName", "columnType", "aggregationIndex", "signal", "fieldContext",
	"fieldDataType", "id", "warnings",
}

var noise = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range NoiseKeys {
		m[k] = true
	}
	return m
}()

// Prune removes nulls, empty strings, empty objects and arrays, and NoiseKeys
// from a decoded JSON value, recursively. It returns nil when nothing is left.
func Prune(v any) any {
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		if x == "" {
			return nil
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if noise[k] {
				continue
			}
			if p := Prune(e); p != nil {
				out[k] = p
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case []any:
		out := make([]any, 0, len(x))
		for _, e := range x {
			if p := Prune(e); p != nil {
				out = append(out, p)
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	default:
		return x
	}
}

// Limits bound a data block.
type Limits struct {
	// MaxRows is the most rows rendered.
	MaxRows int
	// MaxChars caps the whole block.
	MaxChars int
	// MaxString caps one string value, in runes.
	MaxString int
}

// DefaultLimits fit a handful of results in a small model's context.
var DefaultLimits = Limits{MaxRows: 50, MaxChars: 8000, MaxString: 300}

// Block delimiters (contracts/table's). Values are rendered with HTML-safe
// JSON escaping, so '<' and '>' inside telemetry become \u003c and \u003e:
// no value can close the block.
const (
	BeginData = table.Begin
	EndData   = table.End
)

// Block renders rows (pruned, strings capped) as a table inside the data
// delimiters (table.Render), stopping at the row and character limits and
// saying how many rows it left out. The limits count each row as the JSON
// object it was before tables, so a block holds the same rows as it did then
// and table.Legacy gives its parsers the same text.
func Block(rows []any, lim Limits) string {
	if lim.MaxRows <= 0 {
		lim.MaxRows = DefaultLimits.MaxRows
	}
	if lim.MaxChars <= 0 {
		lim.MaxChars = DefaultLimits.MaxChars
	}
	var shown []any
	size := 0
	for i, r := range rows {
		if i >= lim.MaxRows {
			break
		}
		p := capStrings(Prune(r), lim.MaxString)
		if p == nil {
			continue
		}
		line := encode(p)
		if size+len(line)+1 > lim.MaxChars && len(shown) > 0 {
			break
		}
		if len(line) > lim.MaxChars {
			line = truncate(line, lim.MaxChars/2)
			p = map[string]any{"truncated_row": line}
			line = encode(p)
		}
		shown = append(shown, p)
		size += len(line) + 1
	}
	text := table.Render(shown)
	if left := len(rows) - len(shown); left > 0 {
		text += fmt.Sprintf("\n(%d more rows not shown)", left)
	}
	return text
}

// encode is table.Encode: HTML escaping, sorted keys, no trailing newline.
func encode(v any) string { return table.Encode(v) }

// Quote renders one untrusted string as a JSON string literal, HTML-escaped.
func Quote(s string) string { return encode(s) }

func capStrings(v any, n int) any {
	if n <= 0 {
		return v
	}
	switch x := v.(type) {
	case string:
		return truncate(x, n)
	case map[string]any:
		for k, e := range x {
			x[k] = capStrings(e, n)
		}
	case []any:
		for i, e := range x {
			x[i] = capStrings(e, n)
		}
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Sprint(x)
		}
	}
	return v
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + fmt.Sprintf("…[%d chars cut]", len(r)-n)
}

// EstimateTokens estimates tokens as one per four bytes, rounded up: the usual
// rule of thumb for BPE tokenizers on English and JSON.
func EstimateTokens(s string) int { return (len(s) + 3) / 4 }

// Numbers returns every finite number written in text, sorted and without
// duplicates: tokens that parse as a number, or a number followed by a unit
// (ms, s, %, …). Hex identifiers and other words with digits are not numbers.
// Data blocks are read in their one-object-per-line form (table.Legacy), so
// the numbers of a block do not depend on how it is rendered.
func Numbers(text string) []float64 {
	text = table.Legacy(text)
	var out []float64
	for i := 0; i < len(text); {
		if !tokenByte(text[i]) {
			i++
			continue
		}
		j := tokenEnd(text, i)
		if f, ok := number(strings.TrimRight(text[i:j], ".")); ok {
			if negated(text, i) {
				f = -f
			}
			out = append(out, f)
		}
		i = j
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// tokenByte reports whether c belongs to a number token (with its unit).
func tokenByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '.' || c == '_' || c == '%'
}

// tokenEnd is the end of the token starting at i: token bytes, and the sign
// of an exponent when the token starts with a digit (1.5e-3).
func tokenEnd(text string, i int) int {
	j := i
	for j < len(text) && (tokenByte(text[j]) || exponentSign(text, i, j)) {
		j++
	}
	return j
}

func exponentSign(text string, i, j int) bool {
	return (text[j] == '-' || text[j] == '+') && j > i && (text[j-1] == 'e' || text[j-1] == 'E') && text[i] >= '0' && text[i] <= '9'
}

// negated reports whether the token at i has a minus sign of its own before
// it (not a hyphen inside a word).
func negated(text string, i int) bool {
	return i > 0 && text[i-1] == '-' && (i == 1 || !tokenByte(text[i-2]))
}

var units = map[string]bool{"ms": true, "s": true, "us": true, "ns": true, "m": true, "h": true, "min": true, "%": true,
	"kb": true, "mb": true, "gb": true, "kib": true, "mib": true, "gib": true, "x": true, "rps": true}

func number(tok string) (float64, bool) {
	if tok == "" || tok[0] < '0' || tok[0] > '9' {
		return 0, false
	}
	num := tok
	if k := strings.IndexFunc(tok, func(r rune) bool {
		return r >= 'a' && r <= 'z' && r != 'e' || r >= 'A' && r <= 'Z' && r != 'E' || r == '%' || r == '_'
	}); k > 0 {
		if !units[strings.ToLower(tok[k:])] {
			return 0, false
		}
		num = tok[:k]
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}
