package contracts

import "time"

// Tool names the sandbox serves. The investigator shows the model ToolSpecs;
// the sandbox validates and bounds every argument itself.
const (
	ToolServiceOverview   = "service_overview"
	ToolDeploymentMarkers = "deployment_markers"
	ToolErrorTraces       = "error_traces"
	ToolGetTrace          = "get_trace"
	ToolErrorLogs         = "error_logs"
	ToolAggregateTraces   = "aggregate_traces"
	ToolListFields        = "list_fields"
)

// ToolArgs is the union of every tool's arguments. Times are RFC 3339; an
// omitted window means the incident window the sandbox derives from the alert.
type ToolArgs struct {
	Service string     `json:"service,omitempty"`
	From    *time.Time `json:"from,omitempty"`
	To      *time.Time `json:"to,omitempty"`
	// Limit caps rows (the sandbox caps it at 50 whatever is asked).
	Limit int `json:"limit,omitempty"`
	// TraceID is for get_trace.
	TraceID string `json:"trace_id,omitempty"`
	// Severity and Search are for error_logs (Search is a substring of the body);
	// Search also narrows list_fields' keys or values.
	Severity string `json:"severity,omitempty"`
	Search   string `json:"search,omitempty"`
	// Aggregation (count, avg, p50, p90, p95, p99, rate), Field, GroupBy and
	// Filter (a SigNoz filter expression over allowlisted keys) are for aggregate_traces.
	Aggregation string   `json:"aggregation,omitempty"`
	Field       string   `json:"field,omitempty"`
	GroupBy     []string `json:"group_by,omitempty"`
	Filter      string   `json:"filter,omitempty"`
	// Signal (traces or logs) and Key are for list_fields: without Key it lists
	// the attribute keys SigNoz knows for the signal, with Key that key's values.
	Signal string `json:"signal,omitempty"`
	Key    string `json:"key,omitempty"`
}

// ToolSpec describes one tool to a model: OpenAI function-calling shape.
type ToolSpec struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Parameters is a JSON Schema object.
	Parameters map[string]any `json:"parameters"`
}

func window() map[string]any {
	return map[string]any{
		"service": map[string]any{"type": "string", "description": "service.name of the service"},
		"from":    map[string]any{"type": "string", "format": "date-time", "description": "window start (RFC 3339); default: the incident window"},
		"to":      map[string]any{"type": "string", "format": "date-time", "description": "window end (RFC 3339); at most 6 h after from"},
	}
}

func with(m map[string]any, kv ...any) map[string]any {
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

func object(props map[string]any, required ...string) map[string]any {
	o := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		o["required"] = required
	}
	return o
}

// ToolSpecs returns the specification of every tool, in a stable order.
func ToolSpecs() []ToolSpec {
	limit := map[string]any{"type": "integer", "minimum": 1, "maximum": 50}
	return []ToolSpec{
		{ToolServiceOverview, "Request count, error rate and p95 latency by operation for a service, plus the per-minute onset of the regression.", object(window(), "service")},
		{ToolDeploymentMarkers, "Deployment markers (deployment.marker spans) of a service in a window.", object(window(), "service")},
		{ToolErrorTraces, "Recent error spans of a service, newest first.", object(with(window(), "limit", limit), "service")},
		{ToolGetTrace, "Every span of one trace.", object(map[string]any{"trace_id": map[string]any{"type": "string", "pattern": "^[0-9a-f]{32}$"}}, "trace_id")},
		{ToolErrorLogs, "Log records of a service at or above a severity, optionally containing a text.", object(with(window(), "limit", limit,
			"severity", map[string]any{"type": "string", "enum": []string{"WARN", "ERROR", "FATAL"}},
			"search", map[string]any{"type": "string", "maxLength": 200}), "service")},
		{ToolAggregateTraces, "One aggregation over a service's spans, optionally grouped and filtered.", object(with(window(), "limit", limit,
			"aggregation", map[string]any{"type": "string", "enum": []string{"count", "avg", "p50", "p90", "p95", "p99", "rate"}},
			"field", map[string]any{"type": "string", "enum": []string{"duration_nano"}},
			"group_by", map[string]any{"type": "array", "maxItems": 3, "items": map[string]any{"type": "string", "maxLength": 100}},
			"filter", map[string]any{"type": "string", "maxLength": 500}), "service", "aggregation")},
		{ToolListFields, "Attribute keys SigNoz knows for a signal (traces or logs), with their context and type; with key, the values that key takes. Use it to find an attribute's exact name before filtering or grouping on it.", object(map[string]any{
			"signal": map[string]any{"type": "string", "enum": []string{"traces", "logs"}},
			"key":    map[string]any{"type": "string", "pattern": "^[A-Za-z0-9_.:@/-]{1,200}$", "description": "a key from the list, to get its values"},
			"search": map[string]any{"type": "string", "maxLength": 100, "description": "only keys (or values) containing this text"},
			"limit":  limit}, "signal")},
	}
}
