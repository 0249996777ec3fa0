package fakesignoz

import (
	"cmp"
	"encoding/base64"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// keyNotFoundWarning is SigNoz's warning for a key absent from its metadata.
func keyNotFoundWarning(name string) string {
	return fmt.Sprintf("key `%s` not found in metadata; querying the underlying data directly. If this is unexpected, check the key name for typos.", name)
}

// execute answers a decoded request. It is pure: the same request over the
// same store always yields the same response.
func execute(req *queryRangeRequest, st *store) (*queryRangeResponse, *apiError) {
	resp := &queryRangeResponse{
		Type: req.RequestType,
		Data: queryData{Results: []any{}},
		Meta: execStats{StepIntervals: map[string]uint64{}},
	}
	var warnings []string
	byName := map[string]any{}
	for _, q := range req.queries {
		if q.formula != nil {
			if err := q.formula.check(req.queries); err != nil {
				return nil, err
			}
			continue
		}
		w, err := checkKeys(q, st)
		if err != nil {
			return nil, err
		}
		warnings = append(warnings, w...)
		stepSec := uint64(q.StepInterval.Seconds())
		if req.RequestType == requestTimeSeries {
			if stepSec == 0 {
				stepSec = recommendedStep(req.Start, req.End)
			}
			if minStep := minAllowedStep(req.Start, req.End); stepSec < minStep {
				warnings = append(warnings, fmt.Sprintf("step interval %d s for query %s is too small for the time range; using %d s", stepSec, q.Name, minStep))
				stepSec = minStep
			}
		}
		resp.Meta.StepIntervals[q.Name] = stepSec
		recs := selectRecords(q, st, req.Start, req.End)
		for _, r := range recs {
			resp.Meta.RowsScanned++
			resp.Meta.BytesScanned += r.size
		}
		var result any
		switch req.RequestType {
		case requestRaw:
			result = runRaw(q, recs)
		case requestScalar:
			result = runScalar(q, recs, float64(req.End-req.Start)/1000)
		case requestTimeSeries:
			fill := req.FormatOptions != nil && req.FormatOptions.FillGaps
			result = runTimeSeries(q, recs, req.Start, req.End, stepSec, fill)
		}
		byName[q.Name] = result
	}
	// Formulas read every query's result, disabled ones too, as SigNoz's do.
	for _, q := range req.queries {
		if q.formula != nil {
			byName[q.Name] = q.formula.evaluate(byName)
		}
	}
	for _, q := range req.queries {
		if !q.Disabled {
			resp.Data.Results = append(resp.Data.Results, byName[q.Name])
		}
	}
	if len(warnings) > 0 {
		resp.Warning = &warningData{Message: "Encountered warnings"}
		for _, w := range warnings {
			resp.Warning.Warnings = append(resp.Warning.Warnings, warningAdditional{Message: w})
		}
	}
	return resp, nil
}

// recommendedStep is SigNoz's default step: about 300 points, at least 5 s,
// a multiple of 5 s.
func recommendedStep(startMs, endMs uint64) uint64 {
	s := (endMs - startMs) / 300 / 1000
	if s < 5 {
		return 5
	}
	return s - s%5
}

// minAllowedStep is SigNoz's floor: at most 1500 points, at least 5 s.
func minAllowedStep(startMs, endMs uint64) uint64 {
	s := (endMs - startMs) / 1500 / 1000
	if s < 5 {
		return 5
	}
	return s - s%5
}

func checkKeys(q *builderQuery, st *store) ([]string, *apiError) {
	var (
		warnings []string
		err      *apiError
		seen     = map[string]bool{}
	)
	check := func(k fieldKey) {
		if err != nil {
			return
		}
		known, e := st.checkKey(k, q.Signal)
		if e != nil {
			err = e
			return
		}
		if !known && !seen[k.Name] {
			seen[k.Name] = true
			warnings = append(warnings, keyNotFoundWarning(k.Name))
		}
	}
	walkKeys(q.filter, check)
	if q.Signal == signalTraces && hasFullText(q.filter) {
		return nil, unsupported("full-text search is only implemented for logs")
	}
	for _, a := range q.aggs {
		a.keys(check)
	}
	for _, k := range q.GroupBy {
		check(k)
	}
	for _, k := range q.SelectFields {
		check(k)
	}
	return warnings, err
}

// selectRecords applies the time window (inclusive, as SigNoz's
// timestamp >= start AND timestamp <= end) and the filter.
func selectRecords(q *builderQuery, st *store, startMs, endMs uint64) []*record {
	ix := st.indexes[q.Signal]
	if ix == nil {
		ix = st.indexes[signalTraces]
	}
	return ix.selectRecords(q.filter, time.UnixMilli(int64(startMs)), time.UnixMilli(int64(endMs)))
}

// orderedBy is a sort's less over a query's orders: the first order whose
// key tells i and j apart (cmp, like strings.Compare) decides, ascending or
// descending. Raw rows and aggregated groups sort through it.
func orderedBy(orders []orderBy, cmp func(o orderBy, i, j int) int) func(i, j int) bool {
	return func(i, j int) bool {
		for _, o := range orders {
			c := cmp(o, i, j)
			if c == 0 {
				continue
			}
			if o.Direction == "asc" {
				return c < 0
			}
			return c > 0
		}
		return false
	}
}

func runRaw(q *builderQuery, recs []*record) *rawData {
	sorted := slices.Clone(recs)
	orders := q.Order
	if len(orders) == 0 {
		orders = []orderBy{{Key: fieldKey{Name: "timestamp"}, Direction: "desc"}}
	}
	sort.SliceStable(sorted, orderedBy(orders, func(o orderBy, i, j int) int {
		a, _ := sorted[i].get(o.Key, q.Signal)
		b, _ := sorted[j].get(o.Key, q.Signal)
		return compareValues(a, b)
	}))
	limit := q.Limit
	if limit == 0 {
		limit = 100
	}
	out := &rawData{QueryName: q.Name}
	for i := q.Offset; i < len(sorted) && len(out.Rows) < limit; i++ {
		out.Rows = append(out.Rows, rawRowFor(q, sorted[i]))
	}
	if len(out.Rows) == limit {
		last := out.Rows[len(out.Rows)-1]
		if last.Timestamp != nil {
			out.NextCursor = base64.StdEncoding.EncodeToString([]byte(strconv.FormatInt(last.Timestamp.UnixMilli(), 10)))
		}
	}
	return out
}

func rawRowFor(q *builderQuery, r *record) *rawRow {
	ts := r.ts
	row := &rawRow{Timestamp: &ts, Data: map[string]any{}}
	if len(q.SelectFields) == 0 {
		cols := rawSpanColumns
		if q.Signal == signalLogs {
			cols = rawLogColumns
		}
		for _, c := range cols {
			row.Data[c] = sanitize(r.cols[c])
		}
		if q.Signal == signalLogs {
			row.Data["attributes_string"], row.Data["attributes_number"], row.Data["attributes_bool"] = splitAttributes(r.attrs)
			row.Data["resources_string"] = maps.Clone(r.resource)
			row.Data["scope_string"] = map[string]string{}
		} else {
			attrs := map[string]any{}
			for k, v := range r.attrs {
				attrs[k] = sanitize(v)
			}
			row.Data["attributes"] = attrs
			row.Data["resource"] = maps.Clone(r.resource)
		}
		return row
	}
	// SigNoz always selects timestamp, trace_id and span_id for traces and
	// timestamp and id for logs, then the requested fields.
	base := []string{"timestamp", "trace_id", "span_id"}
	if q.Signal == signalLogs {
		base = []string{"timestamp", "id"}
	}
	for _, c := range base {
		row.Data[c] = sanitize(r.cols[c])
	}
	for _, k := range q.SelectFields {
		if slices.Contains(base, k.Name) {
			continue
		}
		v, ok := r.get(k, q.Signal)
		if !ok {
			row.Data[k.Name] = nil
			continue
		}
		row.Data[k.Name] = sanitize(v)
	}
	return row
}

func splitAttributes(attrs map[string]any) (map[string]string, map[string]float64, map[string]bool) {
	s, n, b := map[string]string{}, map[string]float64{}, map[string]bool{}
	for k, v := range attrs {
		switch x := v.(type) {
		case string:
			s[k] = x
		case float64:
			n[k] = x
		case bool:
			b[k] = x
		}
	}
	return s, n, b
}

// compareValues orders two field values: absent first, numbers numerically,
// times by instant, everything else as text.
func compareValues(a, b any) int {
	if a == nil || b == nil {
		switch {
		case a == nil && b == nil:
			return 0
		case a == nil:
			return -1
		}
		return 1
	}
	if ta, ok := a.(time.Time); ok {
		if tb, ok := b.(time.Time); ok {
			return ta.Compare(tb)
		}
	}
	if ia, ok := a.(int64); ok {
		if ib, ok := b.(int64); ok {
			return cmp.Compare(ia, ib)
		}
	}
	fa, okA := a.(float64)
	fb, okB := b.(float64)
	if okA && okB {
		return cmpFloat(fa, fb)
	}
	return strings.Compare(stringOf(a), stringOf(b))
}

// group is the records sharing one combination of group-by values.
type group struct {
	values []string
	recs   []*record
}

// groupRecords splits records by the group-by keys. Records lacking a key are
// left out, as SigNoz adds an existence condition for every group-by key.
func groupRecords(q *builderQuery, recs []*record) []*group {
	if len(q.GroupBy) == 0 {
		return []*group{{recs: recs}}
	}
	index := map[string]*group{}
	var out []*group
	gets := make([]func(*record) (any, bool), len(q.GroupBy))
	for i, k := range q.GroupBy {
		gets[i] = getter(k, q.Signal)
	}
	for _, r := range recs {
		vals := make([]string, 0, len(q.GroupBy))
		ok := true
		for _, get := range gets {
			v, found := get(r)
			if !found {
				ok = false
				break
			}
			vals = append(vals, stringOf(v))
		}
		if !ok {
			continue
		}
		id := strings.Join(vals, "\x00")
		g := index[id]
		if g == nil {
			g = &group{values: vals}
			index[id] = g
			out = append(out, g)
		}
		g.recs = append(g.recs, r)
	}
	return out
}

// orderIndex resolves an order key to an aggregation index (>= 0) or a
// group-by position (encoded as -1-i); ok is false for an unknown key.
func orderIndex(q *builderQuery, k fieldKey) (int, bool) {
	for i, a := range q.aggs {
		if k.Name == a.expr || (a.alias != "" && k.Name == a.alias) || k.Name == "__result_"+strconv.Itoa(i) ||
			(i == 0 && k.Name == "__result") {
			return i, true
		}
	}
	for i, g := range q.GroupBy {
		if k.Name == g.Name {
			return -1 - i, true
		}
	}
	return 0, false
}

// sortGroups orders groups by the query's order (default: first aggregation,
// descending), given each group's aggregate values.
func sortGroups(q *builderQuery, groups []*group, aggs [][]float64) {
	type ranked struct {
		g    *group
		vals []float64
	}
	rs := make([]ranked, len(groups))
	for i := range groups {
		rs[i] = ranked{groups[i], aggs[i]}
	}
	orders := q.Order
	if len(orders) == 0 {
		orders = []orderBy{{Key: fieldKey{Name: "__result_0"}, Direction: "desc"}}
	}
	sort.SliceStable(rs, orderedBy(orders, func(o orderBy, i, j int) int {
		idx, ok := orderIndex(q, o.Key)
		switch {
		case !ok:
			return 0
		case idx >= 0:
			return cmpFloat(nanLow(rs[i].vals[idx]), nanLow(rs[j].vals[idx]))
		}
		return strings.Compare(rs[i].g.values[-1-idx], rs[j].g.values[-1-idx])
	}))
	for i := range rs {
		groups[i], aggs[i] = rs[i].g, rs[i].vals
	}
}

func nanLow(f float64) float64 {
	if f != f {
		return -1e308
	}
	return f
}

func runScalar(q *builderQuery, recs []*record, windowSeconds float64) *scalarData {
	out := &scalarData{QueryName: q.Name, Data: [][]any{}}
	for _, k := range q.GroupBy {
		out.Columns = append(out.Columns, &columnDescriptor{fieldKey: fieldKey{Name: k.Name}, QueryName: q.Name, Type: columnGroup})
	}
	for i := range q.aggs {
		out.Columns = append(out.Columns, &columnDescriptor{fieldKey: fieldKey{Name: "__result_" + strconv.Itoa(i)}, QueryName: q.Name, AggregationIndex: int64(i), Type: columnAggregation})
	}
	groups := groupRecords(q, recs)
	aggs := make([][]float64, len(groups))
	for i, g := range groups {
		for _, a := range q.aggs {
			aggs[i] = append(aggs[i], a.compute(g.recs, q.Signal, windowSeconds))
		}
	}
	sortGroups(q, groups, aggs)
	for i, g := range groups {
		if q.Limit > 0 && i >= q.Limit {
			break
		}
		row := make([]any, 0, len(g.values)+len(q.aggs))
		for _, v := range g.values {
			row = append(row, v)
		}
		for _, v := range aggs[i] {
			row = append(row, sanitize(v))
		}
		out.Data = append(out.Data, row)
	}
	return out
}

func runTimeSeries(q *builderQuery, recs []*record, startMs, endMs, stepSec uint64, fillGaps bool) *timeSeriesData {
	out := &timeSeriesData{QueryName: q.Name}
	groups := topGroups(q, groupRecords(q, recs), float64(endMs-startMs)/1000)
	w := seriesWindow{startMs: int64(startMs), endMs: int64(endMs), stepMs: int64(stepSec) * 1000, fillGaps: fillGaps}
	// Each group's records are put in their steps once, for every
	// aggregation (the sandbox's runtime query has 21 over the same spans).
	steps := make([]groupSteps, len(groups))
	for i, g := range groups {
		steps[i] = w.steps(g)
	}
	for ai, a := range q.aggs {
		bucket := &aggregationBucket{Index: ai, Alias: "__result_" + strconv.Itoa(ai)}
		for gi, g := range groups {
			if series := w.series(q, a, g, steps[gi]); len(series.Values) > 0 {
				bucket.Series = append(bucket.Series, series)
			}
		}
		if len(bucket.Series) > 0 {
			out.Aggregations = append(out.Aggregations, bucket)
		}
	}
	return out
}

// topGroups keeps, as SigNoz does, the top Limit series by the query's order
// over the whole window when the query groups and has more groups than that.
func topGroups(q *builderQuery, groups []*group, windowSeconds float64) []*group {
	if len(q.GroupBy) == 0 || q.Limit <= 0 || len(groups) <= q.Limit {
		return groups
	}
	aggs := make([][]float64, len(groups))
	for i, g := range groups {
		for _, a := range q.aggs {
			aggs[i] = append(aggs[i], a.compute(g.recs, q.Signal, windowSeconds))
		}
	}
	sortGroups(q, groups, aggs)
	return groups[:q.Limit]
}

// seriesWindow is a time series request's range and step, in milliseconds.
type seriesWindow struct {
	startMs, endMs, stepMs int64
	fillGaps               bool
}

// partial reports whether the step at ts is cut by the window's ends.
func (w seriesWindow) partial(ts int64) bool {
	first := w.startMs
	if first%w.stepMs != 0 {
		first = (first/w.stepMs + 1) * w.stepMs
	}
	if ts < first {
		return true
	}
	return ts+w.stepMs > w.endMs && w.endMs%w.stepMs != 0
}

// groupSteps is one group's records by step: the steps' start times in
// order, and each step's records.
type groupSteps struct {
	ts   []int64
	recs [][]*record
}

// steps puts g's records in their steps; with fillGaps, every step of the
// window is there, empty or not.
func (w seriesWindow) steps(g *group) groupSteps {
	byTS := map[int64][]*record{}
	for _, r := range g.recs {
		ts := r.ts.UnixMilli() / w.stepMs * w.stepMs
		byTS[ts] = append(byTS[ts], r)
	}
	if w.fillGaps {
		for ts := w.startMs / w.stepMs * w.stepMs; ts <= w.endMs; ts += w.stepMs {
			if _, ok := byTS[ts]; !ok {
				byTS[ts] = nil
			}
		}
	}
	out := groupSteps{ts: slices.Sorted(maps.Keys(byTS))}
	out.recs = make([][]*record, len(out.ts))
	for i, ts := range out.ts {
		out.recs[i] = byTS[ts]
	}
	return out
}

// series is aggregation a of group g, one point per step of st.
func (w seriesWindow) series(q *builderQuery, a aggregation, g *group, st groupSteps) *timeSeries {
	series := &timeSeries{}
	for i, k := range q.GroupBy {
		series.Labels = append(series.Labels, &label{Key: fieldKey{Name: k.Name}, Value: g.values[i]})
	}
	for i, ts := range st.ts {
		v := a.compute(st.recs[i], q.Signal, float64(w.stepMs/1000))
		if v != v && w.fillGaps {
			v = 0
		}
		if v != v {
			continue // SigNoz drops NaN points
		}
		series.Values = append(series.Values, &timeSeriesValue{Timestamp: ts, Value: sanitize(v), Partial: w.partial(ts)})
	}
	return series
}
