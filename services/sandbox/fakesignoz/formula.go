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

// scalarJoin joins the referenced scalar results row by row on their
// group-by values; results without group-by apply to every row (global).
type scalarJoin struct {
	refs      int
	rows      map[string]*joinRow
	order     []string
	global    []float64
	hasGlobal []bool
	groupCols []*columnDescriptor
}

// add joins reference ri's aggregation column of sd.
func (j *scalarJoin) add(f *formula, ri int, ref formulaRef, sd *scalarData) {
	var names []string
	aggCol := -1
	for ci, c := range sd.Columns {
		if c.Type == columnGroup {
			names = append(names, c.Name)
		} else if int(c.AggregationIndex) == ref.agg && aggCol < 0 {
			aggCol = ci
		}
	}
	if len(names) > len(j.groupCols) {
		j.groupCols = j.groupCols[:0]
		for _, c := range sd.Columns {
			if c.Type == columnGroup {
				j.groupCols = append(j.groupCols, &columnDescriptor{fieldKey: fieldKey{Name: c.Name}, QueryName: f.spec.Name, Type: columnGroup})
			}
		}
	}
	for _, row := range sd.Data {
		v, ok := numberOf(row[aggCol])
		if !ok {
			continue
		}
		if len(names) == 0 {
			j.global[ri], j.hasGlobal[ri] = v, true
			continue
		}
		key := labelSet(names, row[:len(names)])
		jr := j.rows[key]
		if jr == nil {
			jr = &joinRow{names: names, values: row[:len(names)], vals: make([]float64, j.refs), seen: make([]bool, j.refs)}
			j.rows[key] = jr
			j.order = append(j.order, key)
		}
		jr.vals[ri], jr.seen[ri] = v, true
	}
}

// scalarResult is one row of a scalar formula: its labels and value.
type scalarResult struct {
	labels []any
	v      float64
}

// results evaluates the formula on every joined row (or once on the global
// values when no row has labels), dropping NaN and infinite results.
func (j *scalarJoin) results(f *formula) []scalarResult {
	var results []scalarResult
	if len(j.order) == 0 {
		if v := f.root.eval(j.global); !math.IsNaN(v) && !math.IsInf(v, 0) && slices.Contains(j.hasGlobal, true) {
			results = append(results, scalarResult{nil, v})
		}
	}
	for _, key := range j.order {
		jr := j.rows[key]
		vals := slices.Clone(jr.vals)
		for i := range vals {
			if !jr.seen[i] && j.hasGlobal[i] {
				vals[i] = j.global[i]
			}
		}
		v := f.root.eval(vals)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		results = append(results, scalarResult{jr.values, v})
	}
	return results
}

func (f *formula) evaluateScalar(byName map[string]any) *scalarData {
	j := &scalarJoin{refs: len(f.refs), rows: map[string]*joinRow{}, global: make([]float64, len(f.refs)), hasGlobal: make([]bool, len(f.refs))}
	for ri, ref := range f.refs {
		if sd, _ := byName[ref.query].(*scalarData); sd != nil {
			j.add(f, ri, ref, sd)
		}
	}
	out := &scalarData{QueryName: f.spec.Name, Columns: j.groupCols, Data: [][]any{}}
	out.Columns = append(out.Columns, &columnDescriptor{fieldKey: fieldKey{Name: "__result_0"}, QueryName: f.spec.Name, Type: columnAggregation})
	results := j.results(f)
	if f.ordersByValue() {
		desc := f.spec.Order[0].Direction != "asc"
		sort.SliceStable(results, func(a, b int) bool {
			if desc {
				return results[a].v > results[b].v
			}
			return results[a].v < results[b].v
		})
	}
	for i, r := range results {
		if f.spec.Limit > 0 && i >= f.spec.Limit {
			break
		}
		out.Data = append(out.Data, append(slices.Clone(r.labels), sanitize(r.v)))
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

// seriesPoint is one timestamp of a joined series: each reference's value.
type seriesPoint struct {
	vals []float64
	seen []bool
}

// seriesGroup is one joined series: its labels and points by timestamp.
type seriesGroup struct {
	labels []*label
	points map[int64]*seriesPoint
}

// seriesJoin joins the referenced series on their labels and timestamps;
// series without labels apply to every group (global).
type seriesJoin struct {
	refs    int
	groups  map[string]*seriesGroup
	order   []string
	global  []map[int64]float64
	partial map[int64]bool
}

func (j *seriesJoin) point(g *seriesGroup, ts int64) *seriesPoint {
	p := g.points[ts]
	if p == nil {
		p = &seriesPoint{vals: make([]float64, j.refs), seen: make([]bool, j.refs)}
		g.points[ts] = p
	}
	return p
}

// add joins one series of reference ri.
func (j *seriesJoin) add(ri int, s *timeSeries) {
	names := make([]string, len(s.Labels))
	values := make([]any, len(s.Labels))
	for i, l := range s.Labels {
		names[i], values[i] = l.Key.Name, l.Value
	}
	if len(names) == 0 {
		j.global[ri] = map[int64]float64{}
		for _, v := range s.Values {
			if x, ok := numberOf(v.Value); ok {
				j.global[ri][v.Timestamp] = x
			}
			j.partial[v.Timestamp] = j.partial[v.Timestamp] || v.Partial
		}
		return
	}
	key := labelSet(names, values)
	g := j.groups[key]
	if g == nil {
		g = &seriesGroup{labels: s.Labels, points: map[int64]*seriesPoint{}}
		j.groups[key] = g
		j.order = append(j.order, key)
	}
	for _, v := range s.Values {
		x, ok := numberOf(v.Value)
		if !ok {
			continue
		}
		p := j.point(g, v.Timestamp)
		p.vals[ri], p.seen[ri] = x, true
		j.partial[v.Timestamp] = j.partial[v.Timestamp] || v.Partial
	}
}

// onlyGlobal makes the one unlabelled group when no series had labels.
func (j *seriesJoin) onlyGlobal() {
	g := &seriesGroup{points: map[int64]*seriesPoint{}}
	for ri, m := range j.global {
		for ts, x := range m {
			p := j.point(g, ts)
			p.vals[ri], p.seen[ri] = x, true
		}
	}
	j.groups[""] = g
	j.order = []string{""}
}

// series evaluates the formula at every point of group g, dropping NaN and
// infinite results.
func (j *seriesJoin) series(f *formula, g *seriesGroup) *timeSeries {
	series := &timeSeries{Labels: g.labels}
	for _, ts := range slices.Sorted(maps.Keys(g.points)) {
		p := g.points[ts]
		vals := slices.Clone(p.vals)
		for i := range vals {
			if !p.seen[i] && j.global[i] != nil {
				vals[i] = j.global[i][ts]
			}
		}
		v := f.root.eval(vals)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		series.Values = append(series.Values, &timeSeriesValue{Timestamp: ts, Value: sanitize(v), Partial: j.partial[ts]})
	}
	return series
}

func (f *formula) evaluateSeries(byName map[string]any) *timeSeriesData {
	j := &seriesJoin{refs: len(f.refs), groups: map[string]*seriesGroup{}, global: make([]map[int64]float64, len(f.refs)), partial: map[int64]bool{}}
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
				j.add(ri, s)
			}
		}
	}
	if len(j.order) == 0 {
		j.onlyGlobal()
	}
	bucket := &aggregationBucket{Index: 0, Alias: "__result_0"}
	for _, key := range j.order {
		if series := j.series(f, j.groups[key]); len(series.Values) > 0 {
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
