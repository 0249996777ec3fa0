package fakesignoz

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// The filter language is the subset of SigNoz's FilterQuery.g4 grammar that a
// read-only investigation needs:
//
//	expression := or
//	or         := and (OR and)*
//	and        := unary ((AND)? unary)*          juxtaposition is AND, as in SigNoz
//	unary      := NOT? primary
//	primary    := '(' or ')' | comparison | fulltext
//	comparison := key ( '='|'=='|'!='|'<>'|'<'|'<='|'>'|'>=' ) value
//	            | key NOT? (LIKE|ILIKE|REGEXP|CONTAINS) value
//	            | key NOT? BETWEEN value AND value
//	            | key NOT? IN ( '(' values ')' | '[' values ']' | value )
//	            | key NOT? EXISTS
//	value      := 'quoted' | "quoted" | number | true | false | bare-word
//
// Function calls (has, hasAny, hasAll, hasToken, search) are recognised and
// refused, so that a client using them sees a 400 rather than a wrong answer.

type tokenKind int

const (
	tokEOF tokenKind = iota
	tokLParen
	tokRParen
	tokLBrack
	tokRBrack
	tokComma
	tokOp      // = == != <> < <= > >=
	tokKeyword // AND OR NOT IN LIKE ILIKE BETWEEN EXISTS REGEXP CONTAINS HAS...
	tokBool
	tokNumber
	tokQuoted
	tokKey
	tokFreeText
)

type token struct {
	kind tokenKind
	text string // keyword upper-cased, quoted text unescaped, otherwise verbatim
	pos  int
}

var (
	keyPattern    = regexp.MustCompile(`^[a-zA-Z$_@{#][a-zA-Z0-9$_@#{}:\-/]*(\.[a-zA-Z$_@{#][a-zA-Z0-9$_@#{}:\-/]*|\[\]|\[\*\]|\.[0-9]+)*$`)
	numberPattern = regexp.MustCompile(`^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$`)
	keywords      = map[string]string{
		"and": "AND", "or": "OR", "not": "NOT", "in": "IN", "like": "LIKE", "ilike": "ILIKE",
		"between": "BETWEEN", "exist": "EXISTS", "exists": "EXISTS", "regexp": "REGEXP",
		"contain": "CONTAINS", "contains": "CONTAINS", "has": "HAS", "hasany": "HASANY",
		"hasall": "HASALL", "hastoken": "HASTOKEN", "search": "SEARCH",
	}
)

func isWordBreak(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', '=', '(', ')', '\'', '"', '<', '>', '!', ',', '[', ']':
		return true
	}
	return false
}

// punctuation are the one-character tokens.
var punctuation = map[byte]tokenKind{'(': tokLParen, ')': tokRParen, '[': tokLBrack, ']': tokRBrack, ',': tokComma}

func lex(s string) ([]token, error) {
	var toks []token
	for i := 0; i < len(s); {
		c := s[i]
		var (
			t   token
			n   int
			err error
		)
		switch c {
		case ' ', '\t', '\r', '\n':
			i++
			continue
		case '(', ')', '[', ']', ',':
			t, n = token{punctuation[c], string(c), i}, 1
		case '=', '!', '<', '>':
			t, n, err = lexOp(s, i)
		case '\'', '"':
			t, n, err = lexQuoted(s, i)
		default:
			t, n = lexWord(s, i)
		}
		if err != nil {
			return nil, err
		}
		toks = append(toks, t)
		i += n
	}
	return append(toks, token{tokEOF, "", len(s)}), nil
}

// lexOp reads the comparison operator at s[i] and its length.
func lexOp(s string, i int) (token, int, error) {
	op := s[i : i+1]
	if i+1 < len(s) {
		two := s[i : i+2]
		if two == "==" || two == "!=" || two == "<>" || two == "<=" || two == ">=" {
			op = two
		}
	}
	switch op {
	case "!":
		return token{}, 0, fmt.Errorf("unexpected '!' at position %d", i)
	case "==":
		return token{tokOp, "=", i}, 2, nil
	}
	return token{tokOp, op, i}, len(op), nil
}

// lexQuoted reads the quoted text at s[i] (backslash escapes any byte) and
// its length, quotes included.
func lexQuoted(s string, i int) (token, int, error) {
	c := s[i]
	var b strings.Builder
	for j := i + 1; j < len(s); j++ {
		switch {
		case s[j] == '\\' && j+1 < len(s):
			b.WriteByte(s[j+1])
			j++
		case s[j] == c:
			return token{tokQuoted, b.String(), i}, j + 1 - i, nil
		default:
			b.WriteByte(s[j])
		}
	}
	return token{}, 0, fmt.Errorf("unterminated quoted text at position %d", i)
}

// lexWord reads the word at s[i] (a key may end in [] or [*]) and its length.
func lexWord(s string, i int) (token, int) {
	j := i
	for j < len(s) {
		if s[j] == '[' && (strings.HasPrefix(s[j:], "[]") || strings.HasPrefix(s[j:], "[*]")) && j > i {
			if s[j+1] == ']' {
				j += 2
			} else {
				j += 3
			}
			continue
		}
		if isWordBreak(s[j]) {
			break
		}
		j++
	}
	return classifyWord(s[i:j], i), j - i
}

func classifyWord(w string, pos int) token {
	lw := strings.ToLower(w)
	if kw, ok := keywords[lw]; ok {
		return token{tokKeyword, kw, pos}
	}
	if lw == "true" || lw == "false" {
		return token{tokBool, lw, pos}
	}
	if numberPattern.MatchString(w) {
		return token{tokNumber, w, pos}
	}
	if keyPattern.MatchString(w) {
		return token{tokKey, w, pos}
	}
	return token{tokFreeText, w, pos}
}

// node is a parsed filter expression.
type node interface{ isNode() }

type andNode struct{ left, right node }
type orNode struct{ left, right node }
type notNode struct{ inner node }

// compareNode is one comparison. op is one of = != < <= > >= LIKE ILIKE
// REGEXP CONTAINS BETWEEN IN EXISTS; negate flips NOT forms.
type compareNode struct {
	key    fieldKey
	op     string
	negate bool
	values []literal
	re     *regexp.Regexp // LIKE, ILIKE, REGEXP, CONTAINS
}

// fullTextNode is a bare word or quoted text: SigNoz searches log bodies.
type fullTextNode struct{ text string }

func (andNode) isNode()      {}
func (orNode) isNode()       {}
func (notNode) isNode()      {}
func (compareNode) isNode()  {}
func (fullTextNode) isNode() {}

// literal is a filter value: string, float64 (with its text) or bool.
type literal struct {
	kind tokenKind // tokQuoted, tokKey (bare word), tokNumber, tokBool
	text string
	num  float64
	b    bool
}

type parser struct {
	toks []token
	pos  int
}

// parseFilter parses a SigNoz filter expression. An empty expression matches
// everything and returns a nil node.
func parseFilter(expr string) (node, error) {
	if strings.TrimSpace(expr) == "" {
		return nil, nil
	}
	toks, err := lex(expr)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	n, err := p.or()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tokEOF {
		return nil, fmt.Errorf("unexpected %q at position %d", t.text, t.pos)
	}
	return n, nil
}

func (p *parser) peek() token { return p.toks[p.pos] }
func (p *parser) next() token {
	t := p.toks[p.pos]
	if t.kind != tokEOF {
		p.pos++
	}
	return t
}
func (p *parser) isKeyword(kw string) bool {
	t := p.peek()
	return t.kind == tokKeyword && t.text == kw
}

func (p *parser) or() (node, error) {
	left, err := p.and()
	if err != nil {
		return nil, err
	}
	for p.isKeyword("OR") {
		p.next()
		right, err := p.and()
		if err != nil {
			return nil, err
		}
		left = orNode{left, right}
	}
	return left, nil
}

func (p *parser) and() (node, error) {
	left, err := p.unary()
	if err != nil {
		return nil, err
	}
	for {
		if p.isKeyword("AND") {
			p.next()
		} else if !p.startsPrimary() {
			return left, nil
		}
		right, err := p.unary()
		if err != nil {
			return nil, err
		}
		left = andNode{left, right}
	}
}

func (p *parser) startsPrimary() bool {
	t := p.peek()
	switch t.kind {
	case tokLParen, tokKey, tokQuoted, tokFreeText, tokNumber, tokBool:
		return true
	case tokKeyword:
		return t.text == "NOT" || isFunctionKeyword(t.text)
	}
	return false
}

func isFunctionKeyword(kw string) bool {
	switch kw {
	case "HAS", "HASANY", "HASALL", "HASTOKEN", "SEARCH":
		return true
	}
	return false
}

func (p *parser) unary() (node, error) {
	if p.isKeyword("NOT") {
		p.next()
		inner, err := p.primary()
		if err != nil {
			return nil, err
		}
		return notNode{inner}, nil
	}
	return p.primary()
}

func (p *parser) primary() (node, error) {
	t := p.peek()
	switch t.kind {
	case tokLParen:
		p.next()
		n, err := p.or()
		if err != nil {
			return nil, err
		}
		if p.peek().kind != tokRParen {
			return nil, fmt.Errorf("expected ')' at position %d", p.peek().pos)
		}
		p.next()
		return n, nil
	case tokKeyword:
		if isFunctionKeyword(t.text) {
			return nil, fmt.Errorf("fakesignoz: function %s() is not implemented", strings.ToLower(t.text))
		}
		return nil, fmt.Errorf("unexpected %s at position %d", t.text, t.pos)
	case tokKey:
		p.next()
		if p.startsComparison() {
			return p.comparison(t)
		}
		return fullTextNode{t.text}, nil
	case tokQuoted, tokFreeText, tokNumber, tokBool:
		p.next()
		return fullTextNode{t.text}, nil
	}
	if t.kind == tokEOF {
		return nil, fmt.Errorf("unexpected end of expression")
	}
	return nil, fmt.Errorf("unexpected %q at position %d", t.text, t.pos)
}

func (p *parser) startsComparison() bool {
	t := p.peek()
	if t.kind == tokOp {
		return true
	}
	if t.kind != tokKeyword {
		return false
	}
	switch t.text {
	case "NOT", "IN", "LIKE", "ILIKE", "BETWEEN", "EXISTS", "REGEXP", "CONTAINS":
		return true
	}
	return false
}

func (p *parser) comparison(keyTok token) (node, error) {
	key := fieldKey{Name: keyTok.text}
	key.normalize()
	c := compareNode{key: key}
	t := p.next()
	if t.kind == tokOp {
		switch t.text {
		case "<>":
			c.op = "!="
		default:
			c.op = t.text
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		c.values = []literal{v}
		return c, nil
	}
	if t.text == "NOT" {
		c.negate = true
		t = p.next()
		if t.kind != tokKeyword {
			return nil, fmt.Errorf("unexpected %q after NOT at position %d", t.text, t.pos)
		}
	}
	c.op = t.text
	switch t.text {
	case "EXISTS":
		return c, nil
	case "LIKE", "ILIKE", "REGEXP", "CONTAINS":
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		c.values = []literal{v}
		re, err := patternFor(c.op, v.text)
		if err != nil {
			return nil, err
		}
		c.re = re
		return c, nil
	case "BETWEEN":
		lo, err := p.value()
		if err != nil {
			return nil, err
		}
		if !p.isKeyword("AND") {
			return nil, fmt.Errorf("expected AND in BETWEEN at position %d", p.peek().pos)
		}
		p.next()
		hi, err := p.value()
		if err != nil {
			return nil, err
		}
		if lo.kind != tokNumber || hi.kind != tokNumber {
			return nil, fmt.Errorf("BETWEEN needs numbers")
		}
		c.values = []literal{lo, hi}
		return c, nil
	case "IN":
		vals, err := p.valueList()
		if err != nil {
			return nil, err
		}
		c.values = vals
		return c, nil
	}
	return nil, fmt.Errorf("unexpected %s at position %d", t.text, t.pos)
}

func (p *parser) valueList() ([]literal, error) {
	open := p.peek().kind
	if open != tokLParen && open != tokLBrack {
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		return []literal{v}, nil
	}
	p.next()
	closing := tokRParen
	if open == tokLBrack {
		closing = tokRBrack
	}
	var vals []literal
	for {
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		vals = append(vals, v)
		t := p.next()
		if t.kind == closing {
			return vals, nil
		}
		if t.kind != tokComma {
			return nil, fmt.Errorf("expected ',' or closing bracket at position %d", t.pos)
		}
	}
}

func (p *parser) value() (literal, error) {
	t := p.next()
	switch t.kind {
	case tokQuoted, tokKey:
		return literal{kind: t.kind, text: t.text}, nil
	case tokNumber:
		f, err := strconv.ParseFloat(t.text, 64)
		if err != nil {
			return literal{}, fmt.Errorf("invalid number %q at position %d", t.text, t.pos)
		}
		return literal{kind: tokNumber, text: t.text, num: f}, nil
	case tokBool:
		return literal{kind: tokBool, text: t.text, b: t.text == "true"}, nil
	case tokEOF:
		return literal{}, fmt.Errorf("expected a value at end of expression")
	}
	return literal{}, fmt.Errorf("expected a value at position %d, got %q", t.pos, t.text)
}

// patternFor compiles the matcher for LIKE, ILIKE, REGEXP and CONTAINS.
// LIKE's % and _ follow SQL, with backslash escapes; ILIKE and CONTAINS are
// case-insensitive, as SigNoz renders CONTAINS as ILIKE '%v%'.
func patternFor(op, v string) (*regexp.Regexp, error) {
	switch op {
	case "REGEXP":
		re, err := regexp.Compile(v)
		if err != nil {
			return nil, fmt.Errorf("invalid regular expression %q: %v", v, err)
		}
		return re, nil
	case "CONTAINS":
		re, err := regexp.Compile("(?is)" + regexp.QuoteMeta(v))
		if err != nil {
			return nil, fmt.Errorf("invalid CONTAINS value %q: %v", v, err)
		}
		return re, nil
	}
	var b strings.Builder
	if op == "ILIKE" {
		b.WriteString("(?is)^")
	} else {
		b.WriteString("(?s)^")
	}
	rs := []rune(v)
	for i := 0; i < len(rs); i++ {
		switch c := rs[i]; c {
		case '%':
			b.WriteString(".*")
		case '_':
			b.WriteString(".")
		case '\\':
			if i+1 < len(rs) {
				i++
				b.WriteString(regexp.QuoteMeta(string(rs[i])))
			} else {
				b.WriteString(`\\`)
			}
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, fmt.Errorf("invalid %s pattern %q: %v", op, v, err)
	}
	return re, nil
}
