package fakesignoz

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// The request types mirror SigNoz's querybuildertypesv5.QueryRangeRequest and
// its builder query spec field for field (names and json tags), so that a
// request SigNoz would refuse for an unknown field is refused here too.

type queryRangeRequest struct {
	SchemaVersion  string          `json:"schemaVersion"`
	Start          uint64          `json:"start"`
	End            uint64          `json:"end"`
	RequestType    string          `json:"requestType"`
	CompositeQuery compositeQuery  `json:"compositeQuery"`
	Variables      map[string]any  `json:"variables,omitempty"`
	NoCache        bool            `json:"noCache,omitempty"`
	FormatOptions  *formatOptions  `json:"formatOptions,omitempty"`
	queries        []*builderQuery // decoded from CompositeQuery
}

type compositeQuery struct {
	Queries []queryEnvelope `json:"queries"`
}

type queryEnvelope struct {
	Type string          `json:"type"`
	Spec json.RawMessage `json:"spec"`
}

type formatOptions struct {
	FillGaps               bool `json:"fillGaps,omitempty"`
	FormatTableResultForUI bool `json:"formatTableResultForUI,omitempty"`
}

// builderQuery is SigNoz's QueryBuilderQuery[TraceAggregation|LogAggregation].
type builderQuery struct {
	Name                  string            `json:"name"`
	StepInterval          step              `json:"stepInterval,omitzero"`
	Signal                string            `json:"signal,omitempty"`
	Source                string            `json:"source"`
	Aggregations          []aggregationSpec `json:"aggregations,omitzero"`
	Disabled              bool              `json:"disabled"`
	Filter                *exprSpec         `json:"filter,omitempty"`
	GroupBy               []fieldKey        `json:"groupBy,omitzero"`
	Order                 []orderBy         `json:"order,omitzero"`
	SelectFields          []fieldKey        `json:"selectFields,omitzero"`
	Limit                 int               `json:"limit,omitempty"`
	LimitBy               json.RawMessage   `json:"limitBy,omitempty"`
	Offset                int               `json:"offset,omitempty"`
	Cursor                string            `json:"cursor,omitempty"`
	Having                *exprSpec         `json:"having,omitempty"`
	SecondaryAggregations json.RawMessage   `json:"secondaryAggregations,omitzero"`
	Functions             json.RawMessage   `json:"functions,omitzero"`
	Legend                string            `json:"legend"`

	filter  node          // parsed Filter
	aggs    []aggregation // parsed Aggregations
	formula *formula      // set for a builder_formula
}

// aggregationSpec is a trace or log aggregation (expression, alias) or a
// metric aggregation (metricName, temporality, timeAggregation,
// spaceAggregation, reduceTo), as SigNoz's per-signal aggregation types are.
type aggregationSpec struct {
	Expression string `json:"expression,omitempty"`
	Alias      string `json:"alias,omitempty"`

	MetricName                      string          `json:"metricName,omitempty"`
	Temporality                     string          `json:"temporality,omitempty"`
	TimeAggregation                 string          `json:"timeAggregation,omitempty"`
	SpaceAggregation                string          `json:"spaceAggregation,omitempty"`
	ReduceTo                        string          `json:"reduceTo,omitempty"`
	ComparisonSpaceAggregationParam json.RawMessage `json:"comparisonSpaceAggregationParam,omitempty"`
}

type exprSpec struct {
	Expression string `json:"expression"`
}

type orderBy struct {
	Key       fieldKey `json:"key"`
	Direction string   `json:"direction"`
}

// fieldKey is SigNoz's telemetrytypes.TelemetryFieldKey as it travels in JSON.
type fieldKey struct {
	Name          string `json:"name"`
	Description   string `json:"description,omitempty"`
	Unit          string `json:"unit,omitempty"`
	Signal        string `json:"signal"`
	FieldContext  string `json:"fieldContext"`
	FieldDataType string `json:"fieldDataType"`
}

// step accepts what SigNoz's Step accepts: a number of seconds or a Go
// duration string.
type step struct{ time.Duration }

func (s *step) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var str string
		if err := json.Unmarshal(b, &str); err != nil {
			return invalidInput("invalid step")
		}
		d, err := time.ParseDuration(str)
		if err != nil {
			return invalidInput("invalid step, expected a duration string (example: 15s, 1m, 1h), valid time units are ns, u, ms, s, m, h")
		}
		s.Duration = d
		return nil
	}
	var sec float64
	if err := json.Unmarshal(b, &sec); err != nil {
		return invalidInput("invalid step, expected duration in seconds (example: 60 - 1 minute, 240 - 4 minutes, 3600 - 1 hour)")
	}
	s.Duration = time.Duration(sec * float64(time.Second))
	return nil
}

func (s step) MarshalJSON() ([]byte, error) { return json.Marshal(s.Seconds()) }

// fieldContexts are SigNoz's context words with their historical aliases.
var fieldContexts = map[string]string{
	"resource": "resource", "scope": "scope", "tag": "attribute", "point": "attribute",
	"attribute": "attribute", "event": "event", "body": "body", "spanfield": "span",
	"span": "span", "logfield": "log", "log": "log", "metric": "metric",
	"tracefield": "trace", "trace": "trace",
}

var fieldDataTypes = map[string]string{
	"string": "string", "str": "string", "bool": "bool",
	"int": "number", "int8": "number", "int16": "number", "int32": "number", "int64": "int64",
	"uint": "number", "uint8": "number", "uint16": "number", "uint32": "number", "uint64": "number",
	"float": "number", "float32": "number", "float64": "number", "double": "number",
	"decimal": "number", "number": "number",
}

// normalize applies SigNoz's TelemetryFieldKey.Normalize: a ":type" suffix
// sets the data type and a known context word before the first dot sets the
// context, when either is not already given.
func (f *fieldKey) normalize() {
	f.FieldContext = fieldContexts[strings.ToLower(strings.TrimSpace(f.FieldContext))]
	if dt, ok := fieldDataTypes[strings.ToLower(strings.TrimSpace(f.FieldDataType))]; ok {
		f.FieldDataType = dt
	} else {
		f.FieldDataType = ""
	}
	if f.FieldDataType == "" {
		if i := strings.LastIndex(f.Name, ":"); i != -1 {
			if dt, ok := fieldDataTypes[f.Name[i+1:]]; ok {
				f.FieldDataType = dt
				f.Name = f.Name[:i]
			}
		}
	}
	if f.FieldContext == "" {
		if i := strings.Index(f.Name, "."); i != -1 {
			if fc, ok := fieldContexts[f.Name[:i]]; ok {
				f.Name = f.Name[i+1:]
				f.FieldContext = fc
			}
		}
	}
}

const (
	requestRaw        = "raw"
	requestScalar     = "scalar"
	requestTimeSeries = "time_series"
)

// maxRequestBytes bounds what the fake reads; SigNoz requests are small.
const maxRequestBytes = 1 << 20

// decodeQueryRange decodes and validates a v5 query_range body. Every error is
// an *apiError naming what was not understood.
func decodeQueryRange(body []byte) (*queryRangeRequest, *apiError) {
	var req queryRangeRequest
	if err := strictDecode(body, &req, "query range request"); err != nil {
		return nil, err
	}
	switch req.RequestType {
	case requestRaw, requestScalar, requestTimeSeries:
	case "raw_stream", "trace", "distribution":
		return nil, unsupported("request type %q is not implemented", req.RequestType)
	default:
		return nil, invalidInput("unknown request type %q; allowed values: `scalar`, `time_series`, `raw`, `raw_stream`, `trace`, `distribution`", req.RequestType)
	}
	if req.SchemaVersion != "" && req.SchemaVersion != "v1" {
		return nil, unsupported("schemaVersion %q is not implemented; only \"v1\"", req.SchemaVersion)
	}
	if req.Start >= req.End {
		return nil, invalidInput("start time must be before end time")
	}
	if len(req.Variables) > 0 {
		return nil, unsupported("query variables are not implemented")
	}
	if req.FormatOptions != nil && req.FormatOptions.FormatTableResultForUI {
		return nil, unsupported("formatOptions.formatTableResultForUI is not implemented")
	}
	if len(req.CompositeQuery.Queries) == 0 {
		return nil, invalidInput("at least one query is required")
	}
	names := map[string]bool{}
	enabled := 0
	for i, env := range req.CompositeQuery.Queries {
		q, err := decodeEnvelope(env, req.RequestType)
		if err != nil {
			err.message = fmt.Sprintf("query at index %d: %s", i, err.message)
			return nil, err
		}
		if names[q.Name] {
			return nil, invalidInput("duplicate query name '%s'", q.Name)
		}
		names[q.Name] = true
		if !q.Disabled {
			enabled++
		}
		req.queries = append(req.queries, q)
	}
	if enabled == 0 {
		return nil, invalidInput("all queries are disabled - at least one query must be enabled")
	}
	return &req, nil
}

func decodeEnvelope(env queryEnvelope, requestType string) (*builderQuery, *apiError) {
	switch env.Type {
	case "builder_query":
	case "builder_formula":
		if requestType == requestRaw {
			return nil, invalidInput("builder_formula is not supported for raw requests")
		}
		return decodeFormula(env.Spec)
	case "builder_ai_query", "builder_sub_query", "builder_join", "builder_trace_operator", "promql", "clickhouse_sql":
		return nil, unsupported("query type %q is not implemented", env.Type)
	default:
		return nil, invalidInput("unknown query type %q", env.Type)
	}
	var q builderQuery
	if err := strictDecode(env.Spec, &q, "query spec"); err != nil {
		return nil, err
	}
	if err := q.validate(requestType); err != nil {
		return nil, err
	}
	return &q, nil
}

func (q *builderQuery) validate(requestType string) *apiError {
	if q.Name == "" {
		return invalidInput("query name is required")
	}
	for _, check := range []func(string) *apiError{q.checkSignal, q.checkImplemented, q.normalizeKeys, q.parseFilter, q.parseAggregations} {
		if err := check(requestType); err != nil {
			return err
		}
	}
	return nil
}

func (q *builderQuery) checkSignal(requestType string) *apiError {
	switch q.Signal {
	case "traces", "logs":
	case "metrics":
		if requestType == requestRaw {
			return invalidInput("raw request type is not supported for metrics queries")
		}
	default:
		return invalidInput("invalid signal %q", q.Signal)
	}
	return nil
}

// checkImplemented refuses what the fake does not implement, and negative
// bounds.
func (q *builderQuery) checkImplemented(string) *apiError {
	if q.Source != "" {
		return unsupported("source %q is not implemented", q.Source)
	}
	if q.Cursor != "" {
		return unsupported("cursor pagination is not implemented; use offset")
	}
	for what, raw := range map[string]json.RawMessage{"limitBy": q.LimitBy, "secondaryAggregations": q.SecondaryAggregations, "functions": q.Functions} {
		if t := strings.TrimSpace(string(raw)); t != "" && t != "null" && t != "[]" && t != "{}" {
			return unsupported("%s is not implemented", what)
		}
	}
	if q.Having != nil && strings.TrimSpace(q.Having.Expression) != "" {
		return unsupported("having expressions are not implemented")
	}
	if q.Limit < 0 || q.Offset < 0 {
		return invalidInput("limit and offset must not be negative")
	}
	if q.StepInterval.Duration < 0 {
		return invalidInput("step interval must not be negative")
	}
	return nil
}

// normalizeKeys normalizes the group-by, select and order keys and checks
// the order directions.
func (q *builderQuery) normalizeKeys(string) *apiError {
	for i := range q.GroupBy {
		q.GroupBy[i].normalize()
		if q.GroupBy[i].Name == "" {
			return invalidInput("invalid empty key name for group by at index %d", i)
		}
	}
	for i := range q.SelectFields {
		q.SelectFields[i].normalize()
	}
	for i := range q.Order {
		q.Order[i].Key.normalize()
		switch strings.ToLower(q.Order[i].Direction) {
		case "asc", "desc":
			q.Order[i].Direction = strings.ToLower(q.Order[i].Direction)
		default:
			return invalidInput("invalid order direction %q; allowed values: asc, desc", q.Order[i].Direction)
		}
	}
	return nil
}

func (q *builderQuery) parseFilter(string) *apiError {
	if q.Filter != nil {
		n, err := parseFilter(q.Filter.Expression)
		if err != nil {
			return invalidInput("invalid filter expression %q: %v", q.Filter.Expression, err)
		}
		q.filter = n
	}
	return nil
}

func (q *builderQuery) parseAggregations(requestType string) *apiError {
	if requestType == requestRaw {
		return nil
	}
	if len(q.Aggregations) == 0 {
		return invalidInput("at least one aggregation is required for %s queries", requestType)
	}
	for i, a := range q.Aggregations {
		if q.Signal == signalMetrics {
			agg, err := parseMetricAggregation(a, requestType)
			if err != nil {
				err.message = fmt.Sprintf("aggregation at index %d: %s", i, err.message)
				return err
			}
			q.aggs = append(q.aggs, agg)
			continue
		}
		if a.MetricName != "" || a.TimeAggregation != "" || a.SpaceAggregation != "" || a.Temporality != "" || a.ReduceTo != "" {
			return invalidInput("aggregation at index %d: metricName, temporality, timeAggregation, spaceAggregation and reduceTo are fields of metrics aggregations, not of %s", i, q.Signal)
		}
		agg, err := parseAggregation(a.Expression)
		if err != nil {
			return invalidInput("invalid aggregation at index %d %q: %v", i, a.Expression, err)
		}
		agg.alias = a.Alias
		q.aggs = append(q.aggs, agg)
	}
	return nil
}

// strictDecode decodes one JSON value, refusing unknown fields and trailing
// data, as SigNoz's binding does.
func strictDecode(data []byte, v any, what string) *apiError {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var ae *apiError
		if errors.As(err, &ae) {
			return ae
		}
		msg := err.Error()
		if f, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
			return invalidInput("unknown field %s in %s", f, what)
		}
		return invalidInput("failed to decode %s: %s", what, msg)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return invalidInput("failed to decode %s: unexpected data after the JSON value", what)
	}
	return nil
}
