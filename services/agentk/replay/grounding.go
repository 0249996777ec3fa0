package replay

import (
	"math"
	"regexp"
	"strconv"
	"strings"

	"agentk/contracts/table"
)

// The eval's own look at the numbers of a published claim, written apart from
// the reviewer's on purpose: a scoreboard that reused the code it scores would
// agree with it whatever it did. A number in a claim counts only when a number
// token of the cited evidence, in a compatible unit, has its value; digits
// inside an id, a hex trace id, a version or a timestamp are not tokens.

var (
	stampRe    = regexp.MustCompile(`\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?|\b\d{1,2}:\d{2}(:\d{2})?\b|\d{4}-\d{2}-\d{2}`)
	claimNumRe = regexp.MustCompile(`(\d+(?:,\d{3})*(?:\.\d+)?)(\s?(?:ms|s|%|x)\b|%)?`)
	evNumRe    = regexp.MustCompile(`-?(\d+(?:\.\d+)?)(ms|s|%|x)?`)
	evKeyRe    = regexp.MustCompile(`([A-Za-z][A-Za-z0-9_.]*)"?(?:\s*[:=]\s*|\s+)$`)
)

type token struct {
	v    float64
	unit string // "", "ms", "%", "x", "fraction"
}

// standalone reports whether s[i:j] is a token of its own: no letter, digit,
// '_', '.' or '-' joined to it on either side (except a unit suffix, matched
// by the caller), and not a quoted string of digits.
func standalone(s string, i, j int) bool {
	if i > 0 && word(s[i-1]) && !(s[i-1] == '-' && (i < 2 || !word(s[i-2]))) {
		return false // joined on the left (a '-' that follows no word is a sign)
	}
	if j < len(s) && joinedRight(s, j) {
		return false
	}
	return !(i > 0 && j < len(s) && s[i-1] == '"' && s[j] == '"')
}

// word reports whether c may belong to a token: a letter, a digit, '_', '.' or '-'.
func word(c byte) bool {
	return c == '_' || c == '.' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// joinedRight reports whether s[j] joins the token ending before j: a word
// character other than '.', or a '.' followed by one (a sentence's full stop
// does not join).
func joinedRight(s string, j int) bool {
	if s[j] != '.' {
		return word(s[j])
	}
	return j+1 < len(s) && word(s[j+1])
}

func claimTokens(statement string) []token {
	s := stampRe.ReplaceAllStringFunc(statement, func(m string) string { return strings.Repeat(" ", len(m)) })
	var out []token
	for _, m := range claimNumRe.FindAllStringSubmatchIndex(s, -1) {
		end := m[1]
		if !standalone(s, m[2], end) {
			continue
		}
		v, err := strconv.ParseFloat(strings.ReplaceAll(s[m[2]:m[3]], ",", ""), 64)
		if err != nil {
			continue
		}
		unit := ""
		if m[4] >= 0 {
			unit = strings.TrimSpace(s[m[4]:m[5]])
		}
		out = append(out, token{v, unit})
	}
	return out
}

func evidenceTokens(compact string) []token {
	// A data block's bare values take their unit from the key written before
	// them, which only its one-object-per-line form (table.Legacy) has.
	s := stampRe.ReplaceAllStringFunc(table.Legacy(compact), func(m string) string { return strings.Repeat(" ", len(m)) })
	var out []token
	for _, m := range evNumRe.FindAllStringSubmatchIndex(s, -1) {
		if !standalone(s, m[0], m[1]) {
			continue
		}
		v, err := strconv.ParseFloat(s[m[2]:m[3]], 64)
		if err != nil {
			continue
		}
		unit := ""
		if m[4] >= 0 {
			unit = s[m[4]:m[5]]
		} else if k := evKeyRe.FindStringSubmatch(s[max(0, m[0]-48):m[0]]); k != nil {
			key := strings.ToLower(k[1])
			switch {
			case strings.HasSuffix(key, "_ms"):
				unit = "ms"
			case strings.HasSuffix(key, "ratio"):
				unit = "x"
			case strings.HasSuffix(key, "rate"):
				unit = "fraction"
			}
		}
		out = append(out, token{v, unit})
	}
	return out
}

// grounded reports whether every number of statement is a token of evidence.
func grounded(statement string, evidence []token) bool {
	for _, q := range claimTokens(statement) {
		if !slicesAny(evidence, func(e token) bool { return matches(q, e) }) {
			return false
		}
	}
	return true
}

func matches(q, e token) bool {
	near := func(a, b float64) bool { return math.Abs(a-b) <= 0.01*math.Max(math.Abs(a), math.Abs(b))+0.05 }
	ev := math.Abs(e.v)
	switch q.unit {
	case "%":
		return e.unit == "%" && near(q.v, ev) || e.unit == "fraction" && near(q.v, 100*ev)
	case "ms":
		return e.unit == "ms" && near(q.v, ev) || e.unit == "s" && near(q.v, 1000*ev)
	case "s":
		return e.unit == "s" && near(q.v, ev) || e.unit == "ms" && near(1000*q.v, ev)
	case "x":
		return (e.unit == "x" || e.unit == "") && near(q.v, ev)
	}
	return e.unit == "" && near(q.v, ev)
}

func slicesAny[T any](xs []T, f func(T) bool) bool {
	for _, x := range xs {
		if f(x) {
			return true
		}
	}
	return false
}
