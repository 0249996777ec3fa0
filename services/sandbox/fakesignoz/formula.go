package fakesignoz

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// A builder_formula combines other queries' results arithmetically, as
// SigNoz's v5 formula evaluator does: a reference A is query A's first
// aggregation, A.N its N-th; series (time_series) or rows (scalar) are
// joined on equal labels, a query without group-by joining every label set;
// a value missing on one side counts as 0; NaN and infinite results (a
// division by zero) are dropped.

type formulaSpec struct {
	Name       string          `json:"name"`
	Expression string          `json:"expression"`
	Disabled   bool            `json:"disabled"`
	Functions  json.RawMessage `json:"functions,omitzero"`
	Having     *exprSpec       `json:"having,omitempty"`
	Legend     string          `json:"legend"`
	Limit      int             `json:"limit,omitempty"`
	Order      []orderBy       `json:"order,omitzero"`
}

type formula struct {
	spec formulaSpec
	root fnode
	refs []formulaRef
}

type formulaRef struct {
	query string
	agg   int
}

// fnode is a parsed formula: a number, a reference, a unary minus or a
// binary operation.
type fnode struct {
	op          byte // 0 number, 'r' reference, 'n' negation, + - * /
	num         float64
	ref         int
	left, right *fnode
}

var formulaToken = regexp.MustCompile(`^\s*(?:([0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?)|([A-Za-z_][A-Za-z0-9_]*(?:\.[0-9]+)?)|([-+*/()]))`)

func decodeFormula(raw json.RawMessage) (*builderQuery, *apiError) {
	var spec formulaSpec
	if err := strictDecode(raw, &spec, "formula spec"); err != nil {
		return nil, err
	}
	if spec.Name == "" {
		return nil, invalidInput("formula name is required")
	}
	if t := strings.TrimSpace(string(spec.Functions)); t != "" && t != "null" && t != "[]" {
		return nil, unsupported("functions on builder_formula are not implemented")
	}
	if spec.Having != nil && strings.TrimSpace(spec.Having.Expression) != "" {
		return nil, unsupported("having on builder_formula is not implemented")
	}
	if spec.Limit < 0 {
		return nil, invalidInput("limit must not be negative")
	}
	f := &formula{spec: spec}
	p := &formulaParser{s: spec.Expression, f: f}
	root, err := p.expr()
	if err == nil && strings.TrimSpace(p.s) != "" {
		err = fmt.Errorf("unexpected %q", strings.TrimSpace(p.s))
	}
	if err != nil {
		return nil, invalidInput("invalid formula expression %q: %v", spec.Expression, err)
	}
	if len(f.refs) == 0 {
		return nil, invalidInput("formula expression %q references no query", spec.Expression)
	}
	f.root = *root
	for i := range spec.Order {
		switch strings.ToLower(spec.Order[i].Direction) {
		case "asc", "desc":
			spec.Order[i].Direction = strings.ToLower(spec.Order[i].Direction)
		default:
			return nil, invalidInput("invalid order direction %q; allowed values: asc, desc", spec.Order[i].Direction)
		}
	}
	return &builderQuery{Name: spec.Name, Disabled: spec.Disabled, formula: f}, nil
}

type formulaParser struct {
	s string
	f *formula
}

func (p *formulaParser) peek() (string, string) {
	m := formulaToken.FindStringSubmatch(p.s)
	if m == nil {
		return "", ""
	}
	switch {
	case m[1] != "":
		return "num", m[1]
	case m[2] != "":
		return "ref", m[2]
	}
	return "op", m[3]
}

func (p *formulaParser) take() {
	p.s = p.s[len(formulaToken.FindString(p.s)):]
}

func (p *formulaParser) expr() (*fnode, error) {
	left, err := p.term()
	if err != nil {
		return nil, err
	}
	for {
		kind, tok := p.peek()
		if kind != "op" || (tok != "+" && tok != "-") {
			return left, nil
		}
		p.take()
		right, err := p.term()
		if err != nil {
			return nil, err
		}
		left = &fnode{op: tok[0], left: left, right: right}
	}
}

func (p *formulaParser) term() (*fnode, error) {
	left, err := p.unary()
	if err != nil {
		return nil, err
	}
	for {
		kind, tok := p.peek()
		if kind != "op" || (tok != "*" && tok != "/") {
			return left, nil
		}
		p.take()
		right, err := p.unary()
		if err != nil {
			return nil, err
		}
		left = &fnode{op: tok[0], left: left, right: right}
	}
}

func (p *formulaParser) unary() (*fnode, error) {
	kind, tok := p.peek()
	switch {
	case kind == "op" && tok == "-":
		p.take()
		inner, err := p.unary()
		if err != nil {
			return nil, err
		}
		return &fnode{op: 'n', left: inner}, nil
	case kind == "op" && tok == "(":
		p.take()
		inner, err := p.expr()
		if err != nil {
			return nil, err
		}
		if k, t := p.peek(); k != "op" || t != ")" {
			return nil, fmt.Errorf("missing )")
		}
		p.take()
		return inner, nil
	case kind == "num":
		p.take()
		v, err := strconv.ParseFloat(tok, 64)
		if err != nil {
			return nil, err
		}
		return &fnode{num: v}, nil
	case kind == "ref":
		p.take()
		ref := formulaRef{query: tok}
		if q, idx, ok := strings.Cut(tok, "."); ok {
			n, _ := strconv.Atoi(idx)
			ref = formulaRef{query: q, agg: n}
		}
		i := slices.Index(p.f.refs, ref)
		if i < 0 {
			p.f.refs = append(p.f.refs, ref)
			i = len(p.f.refs) - 1
		}
		return &fnode{op: 'r', ref: i}, nil
	case kind == "":
		if strings.TrimSpace(p.s) == "" {
			return nil, fmt.Errorf("unexpected end of expression")
		}
		return nil, fmt.Errorf("unexpected %q (functions in formulas are not implemented by fakesignoz)", strings.TrimSpace(p.s))
	}
	return nil, fmt.Errorf("unexpected %q", tok)
}

func (n *fnode) eval(vals []float64) float64 {
	switch n.op {
	case 0:
		return n.num
	case 'r':
		return vals[n.ref]
	case 'n':
		return -n.left.eval(vals)
	}
	a, b := n.left.eval(vals), n.right.eval(vals)
	switch n.op {
	case '+':
		return a + b
	case '-':
		return a - b
	case '*':
		return a * b
	}
	return a / b
}

// check verifies that every reference names a builder query of the request
// and one of its aggregations.
func (f *formula) check(queries []*builderQuery) *apiError {
	for _, r := range f.refs {
		i := slices.IndexFunc(queries, func(q *builderQuery) bool { return q.Name == r.query })
		if i < 0 {
			return invalidInput("formula %s references query %q, which is not in the request", f.spec.Name, r.query)
		}
		q := queries[i]
		if q.formula != nil {
			return unsupported("formula %s references formula %q; nested formulas are not implemented", f.spec.Name, r.query)
		}
		if r.agg >= len(q.aggs) {
			return invalidInput("formula %s references aggregation %d of query %s, which has %d", f.spec.Name, r.agg, r.query, len(q.aggs))
		}
	}
	return nil
}

// labelSet renders labels as a join key, in name order.
func labelSet(names []string, values []any) string {
	idx := make([]int, len(names))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return names[idx[a]] < names[idx[b]] })
	var b strings.Builder
	for _, i := range idx {
		fmt.Fprintf(&b, "%s=%s\x00", names[i], stringOf(values[i]))
	}
	return b.String()
}

type joinRow struct {
	names  []string
	values []any
	vals   []float64 // per reference
	seen   []bool
}

// evaluate computes the formula over the queries' results.
func (f *formula) evaluate(byName map[string]any) any {
	if _, ok := byName[f.refs[0].query].(*scalarData); ok {
		return f.evaluateScalar(byName)
	}
	return f.evaluateSeries(byName)
}

func (f *formula) evaluateScalar(byName map[string]any) *scalarData {
	rows := map[string]*joinRow{}
	var order []string
	global := make([]float64, len(f.refs)) // from queries without group-by
	hasGlobal := make([]bool, len(f.refs))
	var groupCols []*columnDescriptor
	for ri, ref := range f.refs {
		sd, _ := byName[ref.query].(*scalarData)
		if sd == nil {
			continue
		}
		var names []string
		aggCol := -1
		for ci, c := range sd.Columns {
			if c.Type == columnGroup {
				names = append(names, c.Name)
			} else if int(c.AggregationIndex) == ref.agg && aggCol < 0 {
				aggCol = ci
			}
		}
		if len(names) > len(groupCols) {
			groupCols = groupCols[:0]
			for _, c := range sd.Columns {
				if c.Type == columnGroup {
					groupCols = append(groupCols, &columnDescriptor{fieldKey: fieldKey{Name: c.Name}, QueryName: f.spec.Name, Type: columnGroup})
				}
			}
		}
		for _, row := range sd.Data {
			v, ok := numberOf(row[aggCol])
			if !ok {
				continue
			}
			if len(names) == 0 {
				global[ri], hasGlobal[ri] = v, true
				continue
			}
			key := labelSet(names, row[:len(names)])
			jr := rows[key]
			if jr == nil {
				jr = &joinRow{names: names, values: row[:len(names)], vals: make([]float64, len(f.refs)), seen: make([]bool, len(f.refs))}
				rows[key] = jr
				order = append(order, key)
			}
			jr.vals[ri], jr.seen[ri] = v, true
		}
	}
	out := &scalarData{QueryName: f.spec.Name, Columns: groupCols, Data: [][]any{}}
	out.Columns = append(out.Columns, &columnDescriptor{fieldKey: fieldKey{Name: "__result_0"}, QueryName: f.spec.Name, Type: columnAggregation})
	type result struct {
		labels []any
		v      float64
	}
	var results []result
	if len(order) == 0 {
		if v := f.root.eval(global); !math.IsNaN(v) && !math.IsInf(v, 0) && slices.Contains(hasGlobal, true) {
			results = append(results, result{nil, v})
		}
	}
	for _, key := range order {
		jr := rows[key]
		vals := slices.Clone(jr.vals)
		for i := range vals {
			if !jr.seen[i] && hasGlobal[i] {
				vals[i] = global[i]
			}
		}
		v := f.root.eval(vals)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		results = append(results, result{jr.values, v})
	}
	if f.ordersByValue() {
		desc := f.spec.Order[0].Direction != "asc"
		sort.SliceStable(results, func(i, j int) bool {
			if desc {
				return results[i].v > results[j].v
			}
			return results[i].v < results[j].v
		})
	}
	for i, r := range results {
		if f.spec.Limit > 0 && i >= f.spec.Limit {
			break
		}
		row := append(slices.Clone(r.labels), sanitize(r.v))
		out.Data = append(out.Data, row)
	}
	return out
}

func (f *formula) ordersByValue() bool {
	if len(f.spec.Order) == 0 {
		return false
	}
	k := f.spec.Order[0].Key.Name
	return k == f.spec.Name || k == "__result" || k == "__result_0" || k == f.spec.Expression
}

func (f *formula) evaluateSeries(byName map[string]any) *timeSeriesData {
	type point struct {
		vals []float64
		seen []bool
	}
	type sgroup struct {
		labels []*label
		points map[int64]*point
	}
	groups := map[string]*sgroup{}
	var order []string
	global := make([]map[int64]float64, len(f.refs))
	partial := map[int64]bool{}
	for ri, ref := range f.refs {
		td, _ := byName[ref.query].(*timeSeriesData)
		if td == nil {
			continue
		}
		for _, b := range td.Aggregations {
			if b.Index != ref.agg {
				continue
			}
			for _, s := range b.Series {
				names := make([]string, len(s.Labels))
				values := make([]any, len(s.Labels))
				for i, l := range s.Labels {
					names[i], values[i] = l.Key.Name, l.Value
				}
				if len(names) == 0 {
					global[ri] = map[int64]float64{}
					for _, v := range s.Values {
						if x, ok := numberOf(v.Value); ok {
							global[ri][v.Timestamp] = x
						}
						partial[v.Timestamp] = partial[v.Timestamp] || v.Partial
					}
					continue
				}
				key := labelSet(names, values)
				g := groups[key]
				if g == nil {
					g = &sgroup{labels: s.Labels, points: map[int64]*point{}}
					groups[key] = g
					order = append(order, key)
				}
				for _, v := range s.Values {
					x, ok := numberOf(v.Value)
					if !ok {
						continue
					}
					p := g.points[v.Timestamp]
					if p == nil {
						p = &point{vals: make([]float64, len(f.refs)), seen: make([]bool, len(f.refs))}
						g.points[v.Timestamp] = p
					}
					p.vals[ri], p.seen[ri] = x, true
					partial[v.Timestamp] = partial[v.Timestamp] || v.Partial
				}
			}
		}
	}
	if len(order) == 0 {
		g := &sgroup{points: map[int64]*point{}}
		for ri, m := range global {
			for ts, x := range m {
				p := g.points[ts]
				if p == nil {
					p = &point{vals: make([]float64, len(f.refs)), seen: make([]bool, len(f.refs))}
					g.points[ts] = p
				}
				p.vals[ri], p.seen[ri] = x, true
			}
		}
		groups[""] = g
		order = []string{""}
	}
	bucket := &aggregationBucket{Index: 0, Alias: "__result_0"}
	for _, key := range order {
		g := groups[key]
		series := &timeSeries{Labels: g.labels}
		for _, ts := range slices.Sorted(maps.Keys(g.points)) {
			p := g.points[ts]
			vals := slices.Clone(p.vals)
			for i := range vals {
				if !p.seen[i] && global[i] != nil {
					vals[i] = global[i][ts]
				}
			}
			v := f.root.eval(vals)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			series.Values = append(series.Values, &timeSeriesValue{Timestamp: ts, Value: sanitize(v), Partial: partial[ts]})
		}
		if len(series.Values) > 0 {
			bucket.Series = append(bucket.Series, series)
		}
	}
	if f.spec.Limit > 0 && len(bucket.Series) > f.spec.Limit {
		bucket.Series = bucket.Series[:f.spec.Limit]
	}
	out := &timeSeriesData{QueryName: f.spec.Name}
	if len(bucket.Series) > 0 {
		out.Aggregations = append(out.Aggregations, bucket)
	}
	return out
}
