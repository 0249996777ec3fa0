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
	var out []Condition
	p := 0
	next := func() (tok, bool) {
		if p >= len(toks) {
			return tok{}, false
		}
		p++
		return toks[p-1], true
	}
	peekWord := func(w string) bool {
		return p < len(toks) && toks[p].kind == "word" && strings.EqualFold(toks[p].text, w)
	}
	for p < len(toks) {
		if len(out) > 0 {
			t, _ := next()
			if t.kind != "word" || !strings.EqualFold(t.text, "AND") {
				return nil, fmt.Errorf("%w: conditions must be joined with AND (no OR or parentheses), got %q", errFilter, t.text)
			}
		}
		k, ok := next()
		if !ok || k.kind != "word" {
			return nil, fmt.Errorf("%w: expected a key", errFilter)
		}
		if !allowedKey(k.text) {
			return nil, fmt.Errorf("%w: key %q is not allowed; use one of %s or an attribute under %s", errFilter, k.text, strings.Join(spanKeys, ", "), strings.Join(attrPrefixes, ", "))
		}
		c := Condition{Key: k.text}
		switch {
		case peekWord("NOT"):
			p++
			switch {
			case peekWord("IN"):
				c.Op = "NOT IN"
			case peekWord("CONTAINS"):
				c.Op = "NOT CONTAINS"
			default:
				return nil, fmt.Errorf("%w: NOT must be followed by IN or CONTAINS", errFilter)
			}
			p++
		case peekWord("IN"), peekWord("CONTAINS"), peekWord("EXISTS"):
			c.Op = strings.ToUpper(toks[p].text)
			p++
		default:
			t, ok := next()
			if !ok || t.kind != "op" {
				return nil, fmt.Errorf("%w: expected an operator after %q", errFilter, k.text)
			}
			c.Op = t.text
		}
		switch c.Op {
		case "EXISTS":
		case "IN", "NOT IN":
			if t, ok := next(); !ok || t.text != "(" {
				return nil, fmt.Errorf("%w: %s needs a parenthesised list", errFilter, c.Op)
			}
			for {
				v, ok := next()
				if !ok || v.kind == "op" || v.kind == "punct" || v.kind == "word" {
					return nil, fmt.Errorf("%w: expected a value in the %s list", errFilter, c.Op)
				}
				c.Values = append(c.Values, v.lit())
				t, ok := next()
				if ok && t.text == ")" {
					break
				}
				if !ok || t.text != "," {
					return nil, fmt.Errorf("%w: expected , or ) in the %s list", errFilter, c.Op)
				}
			}
			if len(c.Values) > 20 {
				return nil, fmt.Errorf("%w: at most 20 values in a list", errFilter)
			}
		default:
			v, ok := next()
			if !ok || v.kind == "op" || v.kind == "punct" || v.kind == "word" {
				return nil, fmt.Errorf("%w: expected a value after %s %s", errFilter, c.Key, c.Op)
			}
			if (c.Op == "CONTAINS" || c.Op == "NOT CONTAINS") && v.kind != "string" {
				return nil, fmt.Errorf("%w: %s needs a quoted string", errFilter, c.Op)
			}
			c.Values = []Literal{v.lit()}
		}
		out = append(out, c)
		if len(out) > 10 {
			return nil, fmt.Errorf("%w: at most 10 conditions", errFilter)
		}
	}
	return out, nil
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

func lex(s string) ([]tok, error) {
	var out []tok
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '(' || c == ')' || c == ',':
			out = append(out, tok{"punct", string(c)})
			i++
		case c == '=' || c == '!' || c == '<' || c == '>':
			j := i + 1
			if j < len(s) && s[j] == '=' {
				j++
			}
			op := s[i:j]
			if op == "!" {
				return nil, fmt.Errorf("%w: lone '!'", errFilter)
			}
			out = append(out, tok{"op", op})
			i = j
		case c == '\'' || c == '"':
			var b strings.Builder
			j := i + 1
			closed := false
			for j < len(s) {
				if s[j] == '\\' && j+1 < len(s) {
					b.WriteByte(s[j+1])
					j += 2
					continue
				}
				if s[j] == c {
					closed = true
					j++
					break
				}
				b.WriteByte(s[j])
				j++
			}
			if !closed {
				return nil, fmt.Errorf("%w: unterminated string", errFilter)
			}
			out = append(out, tok{"string", b.String()})
			i = j
		case c == '-' || c >= '0' && c <= '9':
			j := i + 1
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.' || s[j] == 'e' || s[j] == 'E') {
				j++
			}
			if _, err := strconv.ParseFloat(s[i:j], 64); err != nil {
				return nil, fmt.Errorf("%w: bad number %q", errFilter, s[i:j])
			}
			out = append(out, tok{"number", s[i:j]})
			i = j
		case c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z':
			j := i + 1
			for j < len(s) && (s[j] == '_' || s[j] == '.' || s[j] == '-' || s[j] >= '0' && s[j] <= '9' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= 'a' && s[j] <= 'z') {
				j++
			}
			w := s[i:j]
			if strings.EqualFold(w, "true") || strings.EqualFold(w, "false") {
				out = append(out, tok{"bool", strings.ToLower(w)})
			} else {
				out = append(out, tok{"word", w})
			}
			i = j
		default:
			return nil, fmt.Errorf("%w: unexpected character %q", errFilter, c)
		}
	}
	return out, nil
}
