// Package signoz is a client for SigNoz's v5 query API (POST /api/v5/query_range)
// and the decoder of its responses. Request and response shapes follow SigNoz's
// querybuildertypesv5 package and its OpenAPI description.
package signoz

import "agentk/platform/mutant"

// Request types of /api/v5/query_range.
const (
	RequestRaw        = "raw"
	RequestScalar     = "scalar"
	RequestTimeSeries = "time_series"
)

// Signals.
const (
	SignalTraces = "traces"
	SignalLogs   = "logs"
)

// QueryRangeRequest is the body of POST /api/v5/query_range.
type QueryRangeRequest struct {
	SchemaVersion string `json:"schemaVersion"`
	// Start and End are Unix milliseconds.
	Start          int64          `json:"start"`
	End            int64          `json:"end"`
	RequestType    string         `json:"requestType"`
	CompositeQuery CompositeQuery `json:"compositeQuery"`
	FormatOptions  FormatOptions  `json:"formatOptions"`
	Variables      map[string]any `json:"variables"`
}

// CompositeQuery holds one or more query envelopes.
type CompositeQuery struct {
	Queries []QueryEnvelope `json:"queries"`
}

// QueryEnvelope is one query; only builder queries are used.
type QueryEnvelope struct {
	Type string       `json:"type"`
	Spec BuilderQuery `json:"spec"`
}

// BuilderQuery is a builder_query spec over traces or logs.
type BuilderQuery struct {
	Name   string `json:"name"`
	Signal string `json:"signal"`
	// StepInterval is in seconds (time_series only).
	StepInterval int           `json:"stepInterval,omitempty"`
	Disabled     bool          `json:"disabled"`
	Filter       Filter        `json:"filter"`
	Aggregations []Aggregation `json:"aggregations,omitempty"`
	GroupBy      []FieldKey    `json:"groupBy,omitempty"`
	Limit        int           `json:"limit"`
	Offset       int           `json:"offset"`
	Order        []OrderBy     `json:"order,omitempty"`
	Having       Filter        `json:"having"`
	SelectFields []FieldKey    `json:"selectFields,omitempty"`
}

// Filter is a filter or having expression.
type Filter struct {
	Expression string `json:"expression"`
}

// Aggregation is one aggregation expression, e.g. "p95(duration_nano)".
type Aggregation struct {
	Expression string `json:"expression"`
	Alias      string `json:"alias,omitempty"`
}

// FieldKey names a telemetry field.
type FieldKey struct {
	Name          string `json:"name"`
	FieldDataType string `json:"fieldDataType,omitempty"`
	Signal        string `json:"signal,omitempty"`
	FieldContext  string `json:"fieldContext,omitempty"`
}

// OrderBy orders rows or groups.
type OrderBy struct {
	Key       OrderKey `json:"key"`
	Direction string   `json:"direction"`
}

// OrderKey names what to order by.
type OrderKey struct {
	Name string `json:"name"`
}

// FormatOptions are the response formatting options.
type FormatOptions struct {
	FormatTableResultForUI bool `json:"formatTableResultForUI"`
	FillGaps               bool `json:"fillGaps"`
}

// NewRequest returns a request with the fixed fields set as SigNoz's own
// clients send them.
func NewRequest(requestType string, startMs, endMs int64, queries ...BuilderQuery) QueryRangeRequest {
	r := QueryRangeRequest{
		SchemaVersion: "v1", Start: startMs, End: endMs, RequestType: requestType,
		Variables: map[string]any{},
	}
	for _, q := range queries {
		r.CompositeQuery.Queries = append(r.CompositeQuery.Queries, QueryEnvelope{Type: "builder_query", Spec: Bounded(requestType, q)})
	}
	return r
}

// DefaultLimit is the limit of a query that gives none: SigNoz's own and
// the official MCP server's default.
const DefaultLimit = 100

// Bounded returns q with an explicit limit and order: a query that leaves
// either out gets SigNoz's default (DefaultLimit; newest first for rows,
// logs then by id; the first aggregation, descending, for groups). Every
// request the sandbox sends states both, so that no MCP server in front of
// SigNoz has to decide them (the official one fills them in and says so in
// a note) and the direct and MCP routes ask for the same rows (issue 32).
func Bounded(requestType string, q BuilderQuery) BuilderQuery {
	if mutant.Off(mutant.SandboxExplicitBounds) {
		return q
	}
	if q.Limit == 0 {
		q.Limit = DefaultLimit
	}
	if len(q.Order) > 0 {
		return q
	}
	desc := func(keys ...string) []OrderBy {
		var o []OrderBy
		for _, k := range keys {
			o = append(o, OrderBy{Key: OrderKey{Name: k}, Direction: "desc"})
		}
		return o
	}
	switch {
	case requestType == RequestRaw && q.Signal == SignalLogs:
		q.Order = desc("timestamp", "id")
	case requestType == RequestRaw:
		q.Order = desc("timestamp")
	case len(q.Aggregations) > 0:
		q.Order = desc(q.Aggregations[0].Expression)
	}
	return q
}
