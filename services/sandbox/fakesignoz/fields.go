package fakesignoz

import (
	"maps"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// GET /api/v1/fields/keys and /api/v1/fields/values answer SigNoz's
// TelemetrytypesGettableFieldKeys and TelemetrytypesGettableFieldValues from
// the incident's telemetry: the intrinsic columns of each signal, then every
// resource and attribute key seen in the data, with the data type SigNoz's
// metadata would give it.

type gettableFieldKeys struct {
	Keys     map[string][]fieldKey `json:"keys"`
	Complete bool                  `json:"complete"`
}

type gettableFieldValues struct {
	Values   fieldValues `json:"values"`
	Complete bool        `json:"complete"`
}

type fieldValues struct {
	StringValues []string  `json:"stringValues,omitempty"`
	NumberValues []float64 `json:"numberValues,omitempty"`
	BoolValues   []bool    `json:"boolValues,omitempty"`
}

// spanColumnTypes and logColumnTypes are the data types of the intrinsic
// columns, as SigNoz's metadata reports them.
var spanColumnTypes = map[string]string{
	"timestamp": "number", "trace_id": "string", "span_id": "string", "trace_state": "string",
	"parent_span_id": "string", "flags": "number", "name": "string", "kind": "number",
	"kind_string": "string", "duration_nano": "number", "status_code": "number",
	"status_message": "string", "status_code_string": "string", "response_status_code": "string",
	"external_http_url": "string", "http_url": "string", "external_http_method": "string",
	"http_method": "string", "http_host": "string", "db_name": "string", "db_operation": "string",
	"has_error": "bool",
}

var logColumnTypes = map[string]string{
	"timestamp": "number", "id": "string", "trace_id": "string", "span_id": "string",
	"trace_flags": "number", "severity_text": "string", "severity_number": "number",
	"scope_name": "string", "scope_version": "string", "body": "string",
}

// defaultFieldLimit is what SigNoz answers when no limit is given.
const defaultFieldLimit = 1000

// fieldQuery is the query string shared by both endpoints.
type fieldQuery struct {
	signal, context, dataType, search, name, metric string
	limit                                           int
	start, end                                      time.Time // zero: the whole incident
}

func parseFieldQuery(q url.Values, needName bool) (fieldQuery, *apiError) {
	f := fieldQuery{
		signal:   q.Get("signal"),
		context:  strings.ToLower(q.Get("fieldContext")),
		dataType: strings.ToLower(q.Get("fieldDataType")),
		search:   q.Get("searchText"),
		name:     q.Get("name"),
		metric:   q.Get("metricName"),
		limit:    defaultFieldLimit,
	}
	switch f.signal {
	case signalTraces, signalLogs, signalMetrics:
	case "":
		return f, invalidInput("signal is required; allowed values: traces, logs, metrics")
	default:
		return f, invalidInput("invalid signal %q; allowed values: traces, logs, metrics", f.signal)
	}
	if src := q.Get("source"); src != "" {
		return f, unsupported("source %q is not implemented", src)
	}
	if q.Get("existingQuery") != "" {
		return f, unsupported("existingQuery on /api/v1/fields/values is not implemented")
	}
	if f.context != "" {
		fc, ok := fieldContexts[f.context]
		if !ok {
			return f, invalidInput("invalid fieldContext %q", f.context)
		}
		f.context = fc
	}
	if f.dataType != "" {
		dt, ok := fieldDataTypes[f.dataType]
		if !ok {
			return f, invalidInput("invalid fieldDataType %q", f.dataType)
		}
		f.dataType = dt
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return f, invalidInput("invalid limit %q", v)
		}
		if n > 0 {
			f.limit = n
		}
	}
	for param, t := range map[string]*time.Time{"startUnixMilli": &f.start, "endUnixMilli": &f.end} {
		if v := q.Get(param); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				return f, invalidInput("invalid %s %q", param, v)
			}
			*t = time.UnixMilli(n)
		}
	}
	if needName && f.name == "" {
		return f, invalidInput("name is required")
	}
	return f, nil
}

func (f fieldQuery) inWindow(t time.Time) bool {
	return (f.start.IsZero() || !t.Before(f.start)) && (f.end.IsZero() || !t.After(f.end))
}

func (s *Server) fieldWindow(f *fieldQuery) {
	if f.start.IsZero() || f.end.IsZero() {
		return
	}
	f.start, f.end, _ = s.windowNs(f.start, f.end)
}

// dataTypeOf is the SigNoz data type of an attribute value.
func dataTypeOf(v any) string {
	switch v.(type) {
	case bool:
		return "bool"
	case float64:
		return "number"
	}
	return "string"
}

// fieldKeys lists the keys of a signal matching f, sorted by name then context.
func (st *store) fieldKeys(f fieldQuery) ([]fieldKey, bool) {
	var keys []fieldKey
	seen := map[fieldKey]bool{}
	add := func(k fieldKey) {
		if seen[k] {
			return
		}
		seen[k] = true
		keys = append(keys, k)
	}
	switch f.signal {
	case signalMetrics:
		for _, m := range spanMetrics {
			if f.metric != "" && f.metric != m.name {
				continue
			}
			for _, l := range spanMetricLabels {
				add(fieldKey{Name: l, Signal: signalMetrics, FieldContext: "attribute", FieldDataType: "string"})
			}
		}
	default:
		cols := spanColumnTypes
		colCtx := "span"
		if f.signal == signalLogs {
			cols, colCtx = logColumnTypes, "log"
		}
		for name, dt := range cols {
			add(fieldKey{Name: name, Signal: f.signal, FieldContext: colCtx, FieldDataType: dt})
		}
		for _, r := range st.records(f.signal) {
			if !f.inWindow(r.ts) {
				continue
			}
			for k := range r.resource {
				add(fieldKey{Name: k, Signal: f.signal, FieldContext: "resource", FieldDataType: "string"})
			}
			for k, v := range r.attrs {
				add(fieldKey{Name: k, Signal: f.signal, FieldContext: "attribute", FieldDataType: dataTypeOf(v)})
			}
		}
	}
	keys = slices.DeleteFunc(keys, func(k fieldKey) bool {
		return (f.context != "" && k.FieldContext != f.context) ||
			(f.dataType != "" && k.FieldDataType != f.dataType) ||
			(f.search != "" && !strings.Contains(strings.ToLower(k.Name), strings.ToLower(f.search)))
	})
	slices.SortFunc(keys, func(a, b fieldKey) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return strings.Compare(a.FieldContext+a.FieldDataType, b.FieldContext+b.FieldDataType)
	})
	complete := len(keys) <= f.limit
	if !complete {
		keys = keys[:f.limit]
	}
	return keys, complete
}

// fieldValues lists the values a key takes in the signal's records that f
// selects; resource keys before attribute keys before columns, as a key
// without a context resolves in a filter.
func (st *store) fieldValues(f fieldQuery) (fieldValues, bool) {
	vs := valueSet{strs: map[string]bool{}, nums: map[float64]bool{}, bools: map[bool]bool{}}
	if f.signal == signalMetrics {
		for _, p := range st.metricPoints() {
			if !f.inWindow(p.ts) || (f.metric != "" && !slices.ContainsFunc(spanMetrics, func(m spanMetric) bool { return m.name == f.metric })) {
				continue
			}
			if v, ok := p.labels[f.name]; ok {
				vs.add(v)
			}
		}
	} else {
		key := fieldKey{Name: f.name, FieldContext: f.context}
		key.normalize()
		for i := range st.records(f.signal) {
			r := &st.records(f.signal)[i]
			if !f.inWindow(r.ts) {
				continue
			}
			if v, ok := r.get(key, f.signal); ok {
				vs.add(v)
			}
		}
	}
	out := vs.sorted()
	if f.search != "" {
		out = out.matching(strings.ToLower(f.search))
	}
	complete := len(out.StringValues) <= f.limit && len(out.NumberValues) <= f.limit
	out.StringValues = out.StringValues[:min(len(out.StringValues), f.limit)]
	out.NumberValues = out.NumberValues[:min(len(out.NumberValues), f.limit)]
	return out, complete
}

// valueSet gathers the distinct values of a key, by type.
type valueSet struct {
	strs  map[string]bool
	nums  map[float64]bool
	bools map[bool]bool
}

func (vs valueSet) add(v any) {
	switch x := v.(type) {
	case string:
		if x != "" {
			vs.strs[x] = true
		}
	case float64:
		if !math.IsNaN(x) {
			vs.nums[x] = true
		}
	case bool:
		vs.bools[x] = true
	case time.Time:
		vs.nums[float64(x.UnixNano())] = true
	case int64:
		vs.nums[float64(x)] = true
	}
}

// sorted lists the values in order, false before true.
func (vs valueSet) sorted() fieldValues {
	out := fieldValues{StringValues: slices.Sorted(maps.Keys(vs.strs)), NumberValues: slices.Sorted(maps.Keys(vs.nums))}
	if vs.bools[false] {
		out.BoolValues = append(out.BoolValues, false)
	}
	if vs.bools[true] {
		out.BoolValues = append(out.BoolValues, true)
	}
	return out
}

// matching keeps the values whose text contains needle (lower case).
func (out fieldValues) matching(needle string) fieldValues {
	out.StringValues = slices.DeleteFunc(out.StringValues, func(s string) bool { return !strings.Contains(strings.ToLower(s), needle) })
	out.NumberValues = slices.DeleteFunc(out.NumberValues, func(n float64) bool {
		return !strings.Contains(strconv.FormatFloat(n, 'f', -1, 64), needle)
	})
	out.BoolValues = slices.DeleteFunc(out.BoolValues, func(b bool) bool { return !strings.Contains(strconv.FormatBool(b), needle) })
	return out
}

func (s *Server) serveFieldKeys(w http.ResponseWriter, c call) int {
	f, err := parseFieldQuery(c.query, false)
	if err != nil {
		return writeError(w, err)
	}
	s.fieldWindow(&f)
	keys, complete := s.store.fieldKeys(f)
	out := gettableFieldKeys{Keys: map[string][]fieldKey{}, Complete: complete}
	for _, k := range keys {
		out.Keys[k.Name] = append(out.Keys[k.Name], k)
	}
	return writeSuccess(w, out)
}

func (s *Server) serveFieldValues(w http.ResponseWriter, c call) int {
	f, err := parseFieldQuery(c.query, true)
	if err != nil {
		return writeError(w, err)
	}
	s.fieldWindow(&f)
	vals, complete := s.store.fieldValues(f)
	return writeSuccess(w, gettableFieldValues{Values: vals, Complete: complete})
}
