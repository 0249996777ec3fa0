package tools

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Condition is one term of a canonical filter: Key Op Value(s).
type Condition struct {
	Key string
	// Op is one of = != < <= > >= IN, NOT IN, CONTAINS, NOT CONTAINS, EXISTS.
	Op     string
	Values []Literal
}

// Literal is a string, number or boolean value.
type Literal struct {
	Kind string // "string", "number", "bool"
	Text string // the value; numbers and booleans as written
}

// spanKeys are the span columns and well-known attributes a filter or group_by
// may use; attributes under attrPrefixes are allowed too. service.name is
// absent on purpose: the sandbox scopes every query to one service itself.
var spanKeys = []string{
	"name", "has_error", "status_code", "status_code_string", "status_message", "duration_nano",
	"kind", "kind_string", "response_status_code", "http_method", "http_url", "service.version",
	"deployment.environment", "host.name", "peer.service",
}

var attrPrefixes = []string{"http.", "url.", "db.", "rpc.", "server.", "messaging.", "net.", "network.", "error.", "exception.",
	"retry.", "app.", "llm.", "gen_ai.", "rag.", "deployment."}

var keyShape = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.\-]{0,99}$`)

func allowedKey(k string) bool {
	if !keyShape.MatchString(k) || strings.HasPrefix(k, "service.") || strings.HasPrefix(k, "resource.") {
		return false
	}
	return slices.Contains(spanKeys, k) || slices.ContainsFunc(attrPrefixes, func(p string) bool { return strings.HasPrefix(k, p) && len(k) > len(p) })
}

var errFilter = errors.New("not a filter this sandbox accepts")

// ParseFilter parses the subset of SigNoz's filter language the sandbox lets a
// model use: conditions over allowed keys joined by AND (no OR, no
// parentheses), so the result can only narrow the service-scoped query.
func ParseFilter(s string) ([]Condition, error) {
	toks, err := lex(s)
	if err != nil {
		return nil, err
	}
	p := &filterParser{toks: toks}
	var out []Condition
	for p.p < len(toks) {
		if len(out) > 0 {
			t, _ := p.next()
			if t.kind != "word" || !strings.EqualFold(t.text, "AND") {
				return nil, fmt.Errorf("%w: conditions must be joined with AND (no OR or parentheses), got %q", errFilter, t.text)
			}
		}
		c, err := p.condition()
		if err != nil {
			return nil, err
		}
		out = append(out, c)
		if len(out) > 10 {
			return nil, fmt.Errorf("%w: at most 10 conditions", errFilter)
		}
	}
	return out, nil
}

// filterParser reads conditions from a token stream.
type filterParser struct {
	toks []tok
	p    int
}

func (fp *filterParser) next() (tok, bool) {
	if fp.p >= len(fp.toks) {
		return tok{}, false
	}
	fp.p++
	return fp.toks[fp.p-1], true
}

func (fp *filterParser) peekWord(w string) bool {
	return fp.p < len(fp.toks) && fp.toks[fp.p].kind == "word" && strings.EqualFold(fp.toks[fp.p].text, w)
}

// condition reads one Key Op Value(s).
func (fp *filterParser) condition() (Condition, error) {
	k, ok := fp.next()
	if !ok || k.kind != "word" {
		return Condition{}, fmt.Errorf("%w: expected a key", errFilter)
	}
	if !allowedKey(k.text) {
		return Condition{}, fmt.Errorf("%w: key %q is not allowed; use one of %s or an attribute under %s", errFilter, k.text, strings.Join(spanKeys, ", "), strings.Join(attrPrefixes, ", "))
	}
	c := Condition{Key: k.text}
	var err error
	if c.Op, err = fp.operator(k.text); err != nil {
		return Condition{}, err
	}
	switch c.Op {
	case "EXISTS":
	case "IN", "NOT IN":
		c.Values, err = fp.list(c.Op)
	default:
		v, ok := fp.next()
		switch {
		case !ok || v.kind == "op" || v.kind == "punct" || v.kind == "word":
			err = fmt.Errorf("%w: expected a value after %s %s", errFilter, c.Key, c.Op)
		case (c.Op == "CONTAINS" || c.Op == "NOT CONTAINS") && v.kind != "string":
			err = fmt.Errorf("%w: %s needs a quoted string", errFilter, c.Op)
		default:
			c.Values = []Literal{v.lit()}
		}
	}
	return c, err
}

// operator reads the operator after key: NOT IN, NOT CONTAINS, IN,
// CONTAINS, EXISTS or a comparison.
func (fp *filterParser) operator(key string) (string, error) {
	switch {
	case fp.peekWord("NOT"):
		fp.p++
		op := ""
		switch {
		case fp.peekWord("IN"):
			op = "NOT IN"
		case fp.peekWord("CONTAINS"):
			op = "NOT CONTAINS"
		default:
			return "", fmt.Errorf("%w: NOT must be followed by IN or CONTAINS", errFilter)
		}
		fp.p++
		return op, nil
	case fp.peekWord("IN"), fp.peekWord("CONTAINS"), fp.peekWord("EXISTS"):
		fp.p++
		return strings.ToUpper(fp.toks[fp.p-1].text), nil
	}
	t, ok := fp.next()
	if !ok || t.kind != "op" {
		return "", fmt.Errorf("%w: expected an operator after %q", errFilter, key)
	}
	return t.text, nil
}

// list reads a parenthesised list of at most 20 values.
func (fp *filterParser) list(op string) ([]Literal, error) {
	if t, ok := fp.next(); !ok || t.text != "(" {
		return nil, fmt.Errorf("%w: %s needs a parenthesised list", errFilter, op)
	}
	var vals []Literal
	for {
		v, ok := fp.next()
		if !ok || v.kind == "op" || v.kind == "punct" || v.kind == "word" {
			return nil, fmt.Errorf("%w: expected a value in the %s list", errFilter, op)
		}
		vals = append(vals, v.lit())
		t, ok := fp.next()
		if ok && t.text == ")" {
			break
		}
		if !ok || t.text != "," {
			return nil, fmt.Errorf("%w: expected , or ) in the %s list", errFilter, op)
		}
	}
	if len(vals) > 20 {
		return nil, fmt.Errorf("%w: at most 20 values in a list", errFilter)
	}
	return vals, nil
}

// Render writes conditions back as a SigNoz filter expression, quoting every
// string itself.
func Render(conds []Condition) string {
	var parts []string
	for _, c := range conds {
		switch c.Op {
		case "EXISTS":
			parts = append(parts, c.Key+" EXISTS")
		case "IN", "NOT IN":
			var vs []string
			for _, v := range c.Values {
				vs = append(vs, v.render())
			}
			parts = append(parts, fmt.Sprintf("%s %s (%s)", c.Key, c.Op, strings.Join(vs, ", ")))
		default:
			parts = append(parts, fmt.Sprintf("%s %s %s", c.Key, c.Op, c.Values[0].render()))
		}
	}
	return strings.Join(parts, " AND ")
}

// Quote renders s as a SigNoz single-quoted string literal.
func Quote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

func (l Literal) render() string {
	if l.Kind == "string" {
		return Quote(l.Text)
	}
	return l.Text
}

type tok struct {
	kind string // word, string, number, op, punct
	text string
}

func (t tok) lit() Literal {
	switch t.kind {
	case "string":
		return Literal{"string", t.text}
	case "number":
		return Literal{"number", t.text}
	}
	return Literal{"bool", t.text}
}

// lex splits a filter into tokens.
//
// services/sandbox/fakesignoz/filter.go has a lexer of its own, on purpose:
// the fake is a test double of SigNoz's whole filter grammar (OR,
// parentheses, functions), while this one is the sandbox's allowlist and
// accepts only what ParseFilter lets a model use. Sharing one would let the
// fake's grammar widen what the sandbox accepts, or the allowlist narrow what
// the fake can stand in for.
func lex(s string) ([]tok, error) {
	var out []tok
	for i := 0; i < len(s); {
		c := s[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			i++
			continue
		}
		t, j, err := lexOne(s, i)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
		i = j
	}
	return out, nil
}

// lexOne reads the token that starts at s[i] and returns it with the index
// after it.
func lexOne(s string, i int) (tok, int, error) {
	c := s[i]
	switch {
	case c == '(' || c == ')' || c == ',':
		return tok{"punct", string(c)}, i + 1, nil
	case c == '=' || c == '!' || c == '<' || c == '>':
		j := i + 1
		if j < len(s) && s[j] == '=' {
			j++
		}
		if s[i:j] == "!" {
			return tok{}, 0, fmt.Errorf("%w: lone '!'", errFilter)
		}
		return tok{"op", s[i:j]}, j, nil
	case c == '\'' || c == '"':
		return lexString(s, i)
	case c == '-' || isDigit(c):
		return lexNumber(s, i)
	case c == '_' || isLetter(c):
		return lexWord(s, i)
	}
	return tok{}, 0, fmt.Errorf("%w: unexpected character %q", errFilter, c)
}

// lexString reads the quoted string that starts at s[i] (its quote ends it;
// a backslash escapes the next byte).
func lexString(s string, i int) (tok, int, error) {
	q := s[i]
	var b strings.Builder
	for j := i + 1; j < len(s); j++ {
		switch {
		case s[j] == '\\' && j+1 < len(s):
			j++
			b.WriteByte(s[j])
		case s[j] == q:
			return tok{"string", b.String()}, j + 1, nil
		default:
			b.WriteByte(s[j])
		}
	}
	return tok{}, 0, fmt.Errorf("%w: unterminated string", errFilter)
}

// lexNumber reads the number that starts at s[i].
func lexNumber(s string, i int) (tok, int, error) {
	j := i + 1
	for j < len(s) && (isDigit(s[j]) || s[j] == '.' || s[j] == 'e' || s[j] == 'E') {
		j++
	}
	if _, err := strconv.ParseFloat(s[i:j], 64); err != nil {
		return tok{}, 0, fmt.Errorf("%w: bad number %q", errFilter, s[i:j])
	}
	return tok{"number", s[i:j]}, j, nil
}

// lexWord reads the key, keyword or boolean that starts at s[i].
func lexWord(s string, i int) (tok, int, error) {
	j := i + 1
	for j < len(s) && (s[j] == '_' || s[j] == '.' || s[j] == '-' || isDigit(s[j]) || isLetter(s[j])) {
		j++
	}
	if w := s[i:j]; strings.EqualFold(w, "true") || strings.EqualFold(w, "false") {
		return tok{"bool", strings.ToLower(w)}, j, nil
	}
	return tok{"word", s[i:j]}, j, nil
}

func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isLetter(c byte) bool { return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' }
