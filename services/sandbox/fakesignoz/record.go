package fakesignoz

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"agentk/contracts/incident"
)

const (
	signalTraces = "traces"
	signalLogs   = "logs"
)

// record is one span or log line, flattened into the columns SigNoz exposes.
// Values are string, float64, bool or time.Time.
type record struct {
	ts       time.Time
	cols     map[string]any // intrinsic and derived columns by SigNoz name
	resource map[string]string
	attrs    map[string]any
	size     uint64 // bytes, for meta.bytesScanned
}

// spanKinds are SigNoz's kind_string values, indexed by OTLP span kind.
var spanKinds = []string{"Unspecified", "Internal", "Server", "Client", "Producer", "Consumer"}

// statusCodes are SigNoz's status_code_string values by OTLP status code.
var statusCodes = []string{"Unset", "Ok", "Error"}

func spanRecord(s incident.Span) record {
	attrs := decodeAttributes(s.Attributes)
	kind := "Unspecified"
	if s.Kind >= 0 && s.Kind < len(spanKinds) {
		kind = spanKinds[s.Kind]
	}
	status := "Unset"
	if s.StatusCode >= 0 && s.StatusCode < len(statusCodes) {
		status = statusCodes[s.StatusCode]
	}
	str := func(keys ...string) string {
		for _, k := range keys {
			if v, ok := attrs[k]; ok {
				return stringOf(v)
			}
		}
		return ""
	}
	httpURL := str("url.full", "http.url")
	httpMethod := str("http.request.method", "http.method")
	cols := map[string]any{
		"timestamp":            s.Timestamp,
		"trace_id":             s.TraceID,
		"span_id":              s.SpanID,
		"trace_state":          "",
		"parent_span_id":       s.ParentSpanID,
		"flags":                float64(0),
		"name":                 s.Name,
		"kind":                 float64(s.Kind),
		"kind_string":          kind,
		"duration_nano":        float64(s.DurationNano),
		"status_code":          float64(s.StatusCode),
		"status_message":       s.StatusMessage,
		"status_code_string":   status,
		"response_status_code": str("http.response.status_code", "http.status_code", "rpc.grpc.status_code"),
		"http_url":             httpURL,
		"http_method":          httpMethod,
		"http_host":            str("server.address", "http.host", "net.peer.name"),
		"external_http_url":    "",
		"external_http_method": "",
		"db_name":              str("db.namespace", "db.name"),
		"db_operation":         str("db.operation.name", "db.operation"),
		"has_error":            s.HasError,
	}
	if s.Kind == 3 && httpURL != "" { // client spans calling out over HTTP
		cols["external_http_url"] = httpURL
		cols["external_http_method"] = httpMethod
	}
	return record{ts: s.Timestamp, cols: cols, resource: nonNil(s.Resource), attrs: attrs, size: approxSize(s)}
}

// severityNumbers maps OTLP severity text to its lowest severity number.
var severityNumbers = map[string]float64{
	"TRACE": 1, "DEBUG": 5, "INFO": 9, "WARN": 13, "WARNING": 13, "ERROR": 17, "FATAL": 21,
}

func logRecord(l incident.Log, index int) record {
	cols := map[string]any{
		// Logs keep timestamp as epoch nanoseconds, as SigNoz's logs table does.
		"timestamp": l.Timestamp.UnixNano(),
		// SigNoz log ids are KSUIDs that sort by time; this id sorts the same way.
		"id":              fmt.Sprintf("%019d%08d", l.Timestamp.UnixNano(), index),
		"trace_id":        l.TraceID,
		"span_id":         l.SpanID,
		"trace_flags":     float64(0),
		"severity_text":   l.SeverityText,
		"severity_number": severityNumbers[strings.ToUpper(l.SeverityText)],
		"scope_name":      "",
		"scope_version":   "",
		"body":            l.Body,
	}
	return record{ts: l.Timestamp, cols: cols, resource: nonNil(l.Resource), attrs: decodeAttributes(l.Attributes), size: approxSize(l)}
}

func nonNil(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

func approxSize(v any) uint64 {
	b, _ := json.Marshal(v)
	return uint64(len(b))
}

// decodeAttributes keeps strings, numbers and booleans as SigNoz's typed
// attribute maps do; anything else becomes its JSON text, as a string.
func decodeAttributes(in map[string]json.RawMessage) map[string]any {
	out := make(map[string]any, len(in))
	for k, raw := range in {
		if v, ok := scalar(raw); ok {
			if v != nil {
				out[k] = v
			}
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		var v any
		if err := dec.Decode(&v); err != nil {
			out[k] = string(raw)
			continue
		}
		switch x := v.(type) {
		case string, float64, bool:
			out[k] = x
		case nil:
			// a null attribute is an absent attribute
		default:
			out[k] = string(raw)
		}
	}
	return out
}

// scalar reads the common attribute values without a decoder: a string
// with no escape, a number, true, false or null (nil: absent). ok is false
// for anything else, which decodeAttributes decodes in full. The values
// come from a line the incident loader validated.
func scalar(raw []byte) (v any, ok bool) {
	switch s := string(raw); {
	case s == "null":
		return nil, true
	case s == "true" || s == "false":
		return s == "true", true
	case len(s) >= 2 && s[0] == '"':
		if in, ok := incident.PlainString(raw); ok {
			return in, true
		}
	case len(s) > 0 && (s[0] == '-' || '0' <= s[0] && s[0] <= '9'):
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return f, true
		}
	}
	return nil, false
}

// fieldRef says where a name resolves: a column, a resource key or an
// attribute key.
type fieldRef struct {
	col, resource, attr string
}

// deprecatedSpanFields are the pre-v5 names SigNoz still accepts for traces.
var deprecatedSpanFields = map[string]fieldRef{
	"traceID": {col: "trace_id"}, "spanID": {col: "span_id"}, "parentSpanID": {col: "parent_span_id"},
	"spanKind": {col: "kind_string"}, "durationNano": {col: "duration_nano"}, "statusCode": {col: "status_code"},
	"statusMessage": {col: "status_message"}, "statusCodeString": {col: "status_code_string"},
	"responseStatusCode": {col: "response_status_code"}, "externalHttpUrl": {col: "external_http_url"},
	"httpUrl": {col: "http_url"}, "externalHttpMethod": {col: "external_http_method"},
	"httpMethod": {col: "http_method"}, "httpHost": {col: "http_host"}, "dbName": {col: "db_name"},
	"dbOperation": {col: "db_operation"}, "hasError": {col: "has_error"},
	"serviceName": {resource: "service.name"}, "httpRoute": {attr: "http.route"},
	"msgSystem": {attr: "messaging.system"}, "msgOperation": {attr: "messaging.operation"},
	"dbSystem": {attr: "db.system"}, "rpcSystem": {attr: "rpc.system"}, "rpcService": {attr: "rpc.service"},
	"rpcMethod": {attr: "rpc.method"}, "peerService": {attr: "peer.service"},
}

// rawSpanColumns is the column order SigNoz uses when a raw trace query has no
// selectFields (intrinsic, then calculated fields).
var rawSpanColumns = []string{
	"timestamp", "trace_id", "span_id", "trace_state", "parent_span_id", "flags", "name", "kind",
	"kind_string", "duration_nano", "status_code", "status_message", "status_code_string",
	"response_status_code", "external_http_url", "http_url", "external_http_method", "http_method",
	"http_host", "db_name", "db_operation", "has_error",
}

// rawLogColumns is what a raw log query without selectFields returns, besides
// the attribute and resource maps.
var rawLogColumns = []string{
	"timestamp", "id", "trace_id", "span_id", "trace_flags", "severity_text", "severity_number",
	"scope_name", "scope_version", "body",
}

// spanColumnSet and logColumnSet are the raw columns, for lookups.
var spanColumnSet, logColumnSet = setOf(rawSpanColumns), setOf(rawLogColumns)

func setOf(names []string) map[string]bool {
	out := make(map[string]bool, len(names))
	for _, n := range names {
		out[n] = true
	}
	return out
}

// store holds the incident's telemetry, flattened, and the keys it knows.
type store struct {
	spans, logs []record
	metrics     []record // the span metrics' points, one per span
	// known keys per signal: resource and attribute names seen in the data.
	resourceKeys, attrKeys map[string]map[string]bool
	// indexes are each signal's records indexed for queries.
	indexes map[string]*index
}

func newStore(inc *incident.Incident) *store {
	st := &store{
		resourceKeys: map[string]map[string]bool{signalTraces: {}, signalLogs: {}, signalMetrics: {}},
		attrKeys:     map[string]map[string]bool{signalTraces: {}, signalLogs: {}, signalMetrics: {}},
	}
	for _, l := range spanMetricLabels {
		switch l {
		case "service.name", "service.namespace", "deployment.environment":
			st.resourceKeys[signalMetrics][l] = true
		default:
			st.attrKeys[signalMetrics][l] = true
		}
	}
	if inc != nil {
		st.load(inc)
	}
	st.indexes = map[string]*index{}
	for _, sig := range []string{signalTraces, signalLogs, signalMetrics} {
		st.indexes[sig] = newIndex(sig, st.records(sig))
	}
	return st
}

// load flattens the incident's telemetry and notes the keys it uses.
func (st *store) load(inc *incident.Incident) {
	for _, s := range inc.Spans {
		st.spans = append(st.spans, spanRecord(s))
	}
	for i, l := range inc.Logs {
		st.logs = append(st.logs, logRecord(l, i))
	}
	st.metrics = metricRecords(st.spans)
	for sig, recs := range map[string][]record{signalTraces: st.spans, signalLogs: st.logs} {
		for _, r := range recs {
			for k := range r.resource {
				st.resourceKeys[sig][k] = true
			}
			for k := range r.attrs {
				st.attrKeys[sig][k] = true
			}
		}
	}
}

func (st *store) records(signal string) []record {
	switch signal {
	case signalLogs:
		return st.logs
	case signalMetrics:
		return st.metrics
	}
	return st.spans
}

// checkKey refuses keys in contexts the fake cannot answer and reports
// whether SigNoz would know the key at all (false means: warn, as SigNoz
// does for keys absent from its metadata).
func (st *store) checkKey(k fieldKey, signal string) (known bool, err *apiError) {
	switch k.FieldContext {
	case "", "resource", "attribute":
	case "span":
		if signal != signalTraces {
			return false, invalidInput("field context %q is not valid for signal %q (key %q)", k.FieldContext, signal, k.Name)
		}
	case "log":
		if signal != signalLogs {
			return false, invalidInput("field context %q is not valid for signal %q (key %q)", k.FieldContext, signal, k.Name)
		}
	default:
		return false, unsupported("field context %q is not implemented (key %q)", k.FieldContext, k.Name)
	}
	if k.Name == "" {
		return false, invalidInput("empty key name")
	}
	_, isCol := columnRef(k.Name, signal)
	switch k.FieldContext {
	case "resource":
		return st.resourceKeys[signal][k.Name], nil
	case "attribute":
		return st.attrKeys[signal][k.Name], nil
	case "span", "log":
		return isCol || st.attrKeys[signal][k.Name], nil
	}
	return isCol || st.resourceKeys[signal][k.Name] || st.attrKeys[signal][k.Name], nil
}

// columnRef resolves a name to an intrinsic or derived column, or to the
// field behind a deprecated name.
func columnRef(name, signal string) (fieldRef, bool) {
	if signal == signalMetrics {
		return fieldRef{}, false // metrics have labels only
	}
	if signal == signalLogs {
		if logColumnSet[name] {
			return fieldRef{col: name}, true
		}
		return fieldRef{}, false
	}
	if spanColumnSet[name] {
		return fieldRef{col: name}, true
	}
	ref, ok := deprecatedSpanFields[name]
	return ref, ok
}

// get resolves a key on a record the way SigNoz does for an unqualified key:
// intrinsic column first, then resource, then attribute.
func (r *record) get(k fieldKey, signal string) (any, bool) {
	switch k.FieldContext {
	case "resource":
		v, ok := r.resource[k.Name]
		return v, ok
	case "attribute":
		v, ok := r.attrs[k.Name]
		return v, ok
	}
	if ref, ok := columnRef(k.Name, signal); ok {
		return r.resolve(ref)
	}
	if k.FieldContext == "" {
		if v, ok := r.resource[k.Name]; ok {
			return v, true
		}
	}
	v, ok := r.attrs[k.Name]
	return v, ok
}

// getter resolves k for signal once and returns what record.get would
// answer for k on any record: an aggregation or a group-by reads one key
// from many records without looking the name up among the columns each time.
func getter(k fieldKey, signal string) func(*record) (any, bool) {
	name := k.Name
	resource := func(r *record) (any, bool) {
		v, ok := r.resource[name]
		return v, ok
	}
	attr := func(r *record) (any, bool) {
		v, ok := r.attrs[name]
		return v, ok
	}
	switch k.FieldContext {
	case "resource":
		return resource
	case "attribute":
		return attr
	}
	if ref, ok := columnRef(name, signal); ok {
		return func(r *record) (any, bool) { return r.resolve(ref) }
	}
	if k.FieldContext != "" {
		return attr
	}
	return func(r *record) (any, bool) {
		if v, ok := resource(r); ok {
			return v, true
		}
		return attr(r)
	}
}

func (r *record) resolve(ref fieldRef) (any, bool) {
	switch {
	case ref.col != "":
		v, ok := r.cols[ref.col]
		return v, ok
	case ref.resource != "":
		v, ok := r.resource[ref.resource]
		return v, ok
	default:
		v, ok := r.attrs[ref.attr]
		return v, ok
	}
}

// isColumn reports whether k names an intrinsic or derived column, where
// EXISTS means "not empty" rather than "present".
func isColumn(k fieldKey, signal string) bool {
	if k.FieldContext == "resource" || k.FieldContext == "attribute" {
		return false
	}
	ref, ok := columnRef(k.Name, signal)
	return ok && ref.col != ""
}
