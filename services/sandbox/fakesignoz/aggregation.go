package fakesignoz

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
)

// aggregation is one parsed aggregation expression such as count(),
// p95(duration_nano), count_distinct(trace_id), avgIf(duration_nano,
// has_error = true) or rate().
type aggregation struct {
	expr     string  // as written, the name SigNoz orders by
	alias    string  // optional alias from the request
	fn       string  // count, countdistinct, sum, avg, min, max, quantile, rate
	quantile float64 // for quantile
	arg      *fieldKey
	cond     node // the If combinator's condition
	// metrics aggregations (fn "metric"): the metric, its time aggregation
	// (rate, increase) and space aggregation (sum, avg, min, max, count, or
	// quantile for a histogram).
	metric, timeAgg, space string
}

var (
	aggCall     = regexp.MustCompile(`^\s*([A-Za-z_][A-Za-z0-9_]*)\s*\((.*)\)\s*$`)
	quantileFns = map[string]float64{
		"p05": 0.05, "p10": 0.10, "p20": 0.20, "p25": 0.25, "p50": 0.50,
		"p75": 0.75, "p90": 0.90, "p95": 0.95, "p99": 0.99,
	}
)

// parseAggregation reads one aggregation expression. Function names are
// matched like SigNoz matches them: case-insensitively, underscores ignored.
func parseAggregation(expr string) (aggregation, error) {
	m := aggCall.FindStringSubmatch(expr)
	if m == nil {
		return aggregation{}, fmt.Errorf("expected a function call such as count() or p95(duration_nano)")
	}
	name := strings.ReplaceAll(strings.ToLower(m[1]), "_", "")
	args, err := splitArgs(m[2])
	if err != nil {
		return aggregation{}, err
	}
	a := aggregation{expr: strings.TrimSpace(expr)}
	base, isIf := strings.CutSuffix(name, "if")
	if !isIf || base == "" {
		base = name
		isIf = false
	}
	switch {
	case base == "count", base == "countdistinct", base == "sum", base == "avg", base == "min", base == "max", base == "rate":
		a.fn = base
	case quantileFns[base] != 0:
		a.fn, a.quantile = "quantile", quantileFns[base]
	default:
		return aggregation{}, fmt.Errorf("fakesignoz: aggregation function %q is not implemented", m[1])
	}
	if isIf {
		if a.fn == "rate" || len(args) == 0 {
			return aggregation{}, fmt.Errorf("function %q needs a condition", m[1])
		}
		cond, err := parseFilter(args[len(args)-1])
		if err != nil {
			return aggregation{}, fmt.Errorf("condition of %s: %v", m[1], err)
		}
		if cond == nil {
			return aggregation{}, fmt.Errorf("function %q needs a condition", m[1])
		}
		a.cond = cond
		args = args[:len(args)-1]
	}
	switch {
	case len(args) > 1:
		return aggregation{}, fmt.Errorf("function %q takes at most one field", m[1])
	case len(args) == 1:
		k := fieldKey{Name: args[0]}
		if !keyPattern.MatchString(k.Name) {
			return aggregation{}, fmt.Errorf("invalid field %q", args[0])
		}
		k.normalize()
		a.arg = &k
	case a.fn != "count" && a.fn != "rate":
		return aggregation{}, fmt.Errorf("function %q needs a field", m[1])
	}
	if a.fn == "rate" && a.arg != nil {
		return aggregation{}, fmt.Errorf("fakesignoz: rate() with a field is not implemented")
	}
	return a, nil
}

// splitArgs splits on top-level commas, respecting quotes and parentheses.
func splitArgs(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []string
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			switch c {
			case '\\':
				i++
			case quote:
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth < 0 {
				return nil, fmt.Errorf("unbalanced parentheses")
			}
		case c == ',' && depth == 0:
			out = append(out, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	if quote != 0 || depth != 0 {
		return nil, fmt.Errorf("unbalanced quotes or parentheses")
	}
	return append(out, strings.TrimSpace(s[start:])), nil
}

// compute evaluates the aggregation over records; seconds is the interval a
// rate divides by. Empty numeric aggregations are NaN, as in ClickHouse.
func (a aggregation) compute(recs []*record, signal string, seconds float64) float64 {
	if a.fn == "metric" {
		return a.computeMetric(recs, seconds)
	}
	n, vals, unique := a.collect(recs, signal)
	switch a.fn {
	case "count":
		return n
	case "rate":
		if seconds <= 0 {
			return math.NaN()
		}
		return n / seconds
	case "countdistinct":
		return float64(len(unique))
	case "sum":
		return sum(vals)
	}
	if len(vals) == 0 {
		return math.NaN()
	}
	switch a.fn {
	case "avg":
		return sum(vals) / float64(len(vals))
	case "min":
		return slices.Min(vals)
	case "max":
		return slices.Max(vals)
	}
	return quantile(vals, a.quantile)
}

// collect counts the records the aggregation takes (its condition holds,
// its argument is present) and gathers the numbers or distinct values it
// reads.
func (a aggregation) collect(recs []*record, signal string) (n float64, vals []float64, unique map[string]bool) {
	if a.fn == "countdistinct" {
		unique = map[string]bool{}
	}
	var get func(*record) (any, bool)
	if a.arg != nil {
		get = getter(*a.arg, signal)
	}
	for _, r := range recs {
		if a.cond != nil && !matches(a.cond, r, signal) {
			continue
		}
		if get == nil {
			n++
			continue
		}
		v, ok := get(r)
		if !ok {
			continue
		}
		n++
		switch a.fn {
		case "countdistinct":
			unique[stringOf(v)] = true
		case "sum", "avg", "min", "max", "quantile":
			if f, ok := numberOf(v); ok {
				vals = append(vals, f)
			}
		}
	}
	return n, vals, unique
}

func sum(vals []float64) float64 {
	s := 0.0
	for _, v := range vals {
		s += v
	}
	return s
}

// quantile interpolates linearly between closest ranks, as ClickHouse's
// quantile does over its sample (exact here: the fake keeps every value).
func quantile(vals []float64, q float64) float64 {
	s := slices.Clone(vals)
	slices.Sort(s)
	pos := q * float64(len(s)-1)
	lo := int(math.Floor(pos))
	hi := int(math.Ceil(pos))
	return s[lo] + (s[hi]-s[lo])*(pos-float64(lo))
}

// keys returns the field keys an aggregation reads.
func (a aggregation) keys(fn func(fieldKey)) {
	if a.arg != nil {
		fn(*a.arg)
	}
	walkKeys(a.cond, fn)
}
