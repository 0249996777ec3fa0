package fakesignoz

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// stringOf renders a value as ClickHouse's toString would: whole numbers
// without a decimal point, booleans as true/false.
func stringOf(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case int64:
		return strconv.FormatInt(x, 10)
	case bool:
		return strconv.FormatBool(x)
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	case nil:
		return ""
	}
	return ""
}

// numberOf converts a value to a number when it is one or reads as one.
func numberOf(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int64:
		return float64(x), true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case time.Time:
		return float64(x.UnixNano()), true
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		return f, err == nil
	}
	return 0, false
}

// equalTo compares a field value with a filter literal, coercing the literal
// to the field's type as SigNoz does (has_error = true, status = '500').
func equalTo(v any, lit literal) bool {
	switch x := v.(type) {
	case bool:
		switch lit.kind {
		case tokBool:
			return x == lit.b
		case tokNumber:
			return (lit.num != 0) == x
		}
		return strings.EqualFold(lit.text, strconv.FormatBool(x))
	case float64, int64:
		f, _ := numberOf(x)
		if g, ok := numberOf(lit.text); ok && lit.kind != tokBool {
			return f == g
		}
		return false
	case time.Time:
		if f, ok := numberOf(lit.text); ok {
			return float64(x.UnixNano()) == f
		}
		return false
	}
	s := stringOf(v)
	if lit.kind == tokNumber {
		if f, ok := numberOf(s); ok {
			return f == lit.num
		}
	}
	return s == lit.text
}

// order compares a field value with a literal: -1, 0, 1, and false when the
// two cannot be ordered.
func order(v any, lit literal) (int, bool) {
	if _, isBool := v.(bool); isBool {
		return 0, false
	}
	if f, ok := numberOf(v); ok {
		if g, ok := numberOf(lit.text); ok && lit.kind != tokBool {
			return cmpFloat(f, g), true
		}
	}
	switch v.(type) {
	case float64, int64:
		return 0, false
	}
	return strings.Compare(stringOf(v), lit.text), true
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// matches evaluates a parsed filter on one record. A nil filter matches.
func matches(n node, r *record, signal string) bool {
	switch x := n.(type) {
	case nil:
		return true
	case andNode:
		return matches(x.left, r, signal) && matches(x.right, r, signal)
	case orNode:
		return matches(x.left, r, signal) || matches(x.right, r, signal)
	case notNode:
		return !matches(x.inner, r, signal)
	case fullTextNode:
		body, _ := r.cols["body"].(string)
		return strings.Contains(strings.ToLower(body), strings.ToLower(x.text))
	case compareNode:
		return compare(x, r, signal)
	}
	return false
}

// compare evaluates one comparison. An absent field satisfies only the
// negative forms (!=, NOT IN, NOT LIKE, NOT EXISTS, ...), the way a missing
// map key reads as a default value in SigNoz's ClickHouse tables.
func compare(c compareNode, r *record, signal string) bool {
	v, ok := r.get(c.key, signal)
	if ok && isColumn(c.key, signal) && c.op == "EXISTS" {
		if s, isStr := v.(string); isStr && s == "" {
			ok = false
		}
	}
	switch c.op {
	case "!=":
		return !ok || !equalTo(v, c.values[0])
	case "<", "<=", ">", ">=":
		return ok && ordered(c.op, v, c.values[0])
	}
	res := ok && holds(c, v)
	if c.negate {
		return !res
	}
	return res
}

// ordered evaluates <, <=, > or >= on a present value.
func ordered(op string, v any, lit literal) bool {
	o, comparable := order(v, lit)
	if !comparable {
		return false
	}
	switch op {
	case "<":
		return o < 0
	case "<=":
		return o <= 0
	case ">":
		return o > 0
	}
	return o >= 0
}

// holds evaluates the positive form of EXISTS, =, LIKE and its kin, IN and
// BETWEEN on a present value.
func holds(c compareNode, v any) bool {
	switch c.op {
	case "EXISTS":
		return true
	case "=":
		return equalTo(v, c.values[0])
	case "LIKE", "ILIKE", "REGEXP", "CONTAINS":
		return c.re.MatchString(stringOf(v))
	case "IN":
		return slices.ContainsFunc(c.values, func(lit literal) bool { return equalTo(v, lit) })
	case "BETWEEN":
		f, isNum := numberOf(v)
		return isNum && f >= c.values[0].num && f <= c.values[1].num
	}
	return false
}

// walkKeys calls fn for every key a filter mentions.
func walkKeys(n node, fn func(fieldKey)) {
	switch x := n.(type) {
	case andNode:
		walkKeys(x.left, fn)
		walkKeys(x.right, fn)
	case orNode:
		walkKeys(x.left, fn)
		walkKeys(x.right, fn)
	case notNode:
		walkKeys(x.inner, fn)
	case compareNode:
		fn(x.key)
	}
}

// hasFullText reports whether a filter searches free text.
func hasFullText(n node) bool {
	switch x := n.(type) {
	case andNode:
		return hasFullText(x.left) || hasFullText(x.right)
	case orNode:
		return hasFullText(x.left) || hasFullText(x.right)
	case notNode:
		return hasFullText(x.inner)
	case fullTextNode:
		return true
	}
	return false
}
