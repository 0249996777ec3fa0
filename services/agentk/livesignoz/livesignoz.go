// Package livesignoz is the live demo's local stand-in for SigNoz: it takes
// real OTLP/HTTP protobuf traces (what the demo target's OpenTelemetry SDK
// exports) on POST /v1/traces, turns each span into an incident.Span, and
// answers SigNoz's query API over everything received so far through
// fakesignoz, the same fake the offline demo and the tests use: same
// envelopes, same filters, same aggregations, same API-key check.
//
// It is not SigNoz: no ClickHouse, no alert rules, no UI, no logs or metrics
// (the OTLP logs and metrics paths answer 404). It exists so that `agentk demo
// --live` can investigate and verify recovery from telemetry the demo target
// really emitted, on a machine without SigNoz.
package livesignoz

import (
	"compress/gzip"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"agentk/contracts/incident"
	"agentk/services/sandbox/fakesignoz"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	common "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// maxExportBytes bounds one OTLP request body (after gzip).
const maxExportBytes = 8 << 20

// Store holds every span received and serves SigNoz's query API over them.
// It is safe for concurrent use.
type Store struct {
	apiKey string
	allow  func(net.IP) bool

	mu      sync.Mutex
	spans   []incident.Span
	srv     *fakesignoz.Server // built over spans[:built]
	built   int
	batches int
	refused int
}

// New returns a store whose query API demands apiKey and whose OTLP receiver
// accepts a request only from a peer address allow accepts (nil: loopback only).
func New(apiKey string, allow func(net.IP) bool) *Store {
	if allow == nil {
		allow = func(ip net.IP) bool { return ip.IsLoopback() }
	}
	return &Store{apiKey: apiKey, allow: allow}
}

// Add appends spans as if they had been received.
func (s *Store) Add(spans ...incident.Span) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.spans = append(s.spans, spans...)
}

// Spans returns a copy of the received spans keep accepts (every span when nil).
func (s *Store) Spans(keep func(incident.Span) bool) []incident.Span {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []incident.Span
	for _, sp := range s.spans {
		if keep == nil || keep(sp) {
			out = append(out, sp)
		}
	}
	return out
}

// Stats reports the OTLP requests accepted, the spans held and the requests refused.
func (s *Store) Stats() (batches, spans, refused int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.batches, len(s.spans), s.refused
}

// OTLP is the receiver: POST /v1/traces with an ExportTraceServiceRequest in
// protobuf (gzip or not), as the OpenTelemetry SDKs send it over HTTP.
func (s *Store) OTLP() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, _ := net.SplitHostPort(r.RemoteAddr)
		if ip := net.ParseIP(host); ip == nil || !s.allow(ip) {
			s.mu.Lock()
			s.refused++
			s.mu.Unlock()
			http.Error(w, "livesignoz: this receiver takes spans only from the demo's own containers", http.StatusForbidden)
			return
		}
		if r.URL.Path != "/v1/traces" {
			http.Error(w, "livesignoz: only traces are received (POST /v1/traces)", http.StatusNotFound)
			return
		}
		if r.Method != http.MethodPost {
			http.Error(w, "livesignoz: POST only", http.StatusMethodNotAllowed)
			return
		}
		if ct := r.Header.Get("Content-Type"); ct != "application/x-protobuf" {
			http.Error(w, "livesignoz: only OTLP protobuf is received, not "+strconv.Quote(ct), http.StatusUnsupportedMediaType)
			return
		}
		var body io.Reader = http.MaxBytesReader(w, r.Body, maxExportBytes)
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			defer func() { _ = zr.Close() }()
			body = io.LimitReader(zr, maxExportBytes)
		}
		b, err := io.ReadAll(body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var req coltrace.ExportTraceServiceRequest
		if err := proto.Unmarshal(b, &req); err != nil {
			http.Error(w, "livesignoz: not an ExportTraceServiceRequest: "+err.Error(), http.StatusBadRequest)
			return
		}
		spans := FromOTLP(&req)
		s.mu.Lock()
		s.batches++
		s.mu.Unlock()
		s.Add(spans...)
		out, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	})
}

// Query is SigNoz's query API (fakesignoz) over every span received so far.
func (s *Store) Query() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.server().ServeHTTP(w, r)
	})
}

// server returns a fakesignoz server over the spans held now, rebuilt only
// when spans arrived since the last one.
func (s *Store) server() *fakesignoz.Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv == nil || s.built != len(s.spans) {
		spans := make([]incident.Span, len(s.spans))
		copy(spans, s.spans)
		s.srv = fakesignoz.New(&incident.Incident{Spans: spans}, fakesignoz.Options{APIKey: s.apiKey})
		s.built = len(spans)
	}
	return s.srv
}

// FromOTLP flattens an export request into spans: SigNoz's columns (start
// time, ids in hex, kind and status codes as OTLP numbers them, which is
// how SigNoz stores them), the resource's and the span's attributes.
func FromOTLP(req *coltrace.ExportTraceServiceRequest) []incident.Span {
	var out []incident.Span
	for _, rs := range req.GetResourceSpans() {
		res := map[string]string{}
		for _, kv := range rs.GetResource().GetAttributes() {
			res[kv.GetKey()] = text(kv.GetValue())
		}
		for _, ss := range rs.GetScopeSpans() {
			for _, sp := range ss.GetSpans() {
				out = append(out, span(sp, res))
			}
		}
	}
	return out
}

func span(sp *tracepb.Span, res map[string]string) incident.Span {
	attrs := map[string]json.RawMessage{}
	for _, kv := range sp.GetAttributes() {
		attrs[kv.GetKey()] = raw(kv.GetValue())
	}
	r := make(map[string]string, len(res))
	for k, v := range res {
		r[k] = v
	}
	start, end := sp.GetStartTimeUnixNano(), sp.GetEndTimeUnixNano()
	var dur int64
	if end > start {
		dur = int64(end - start)
	}
	code := int(sp.GetStatus().GetCode())
	return incident.Span{
		Timestamp:     time.Unix(0, int64(start)).UTC(),
		TraceID:       hex.EncodeToString(sp.GetTraceId()),
		SpanID:        hex.EncodeToString(sp.GetSpanId()),
		ParentSpanID:  hex.EncodeToString(sp.GetParentSpanId()),
		Name:          sp.GetName(),
		Kind:          int(sp.GetKind()),
		DurationNano:  dur,
		HasError:      code == int(tracepb.Status_STATUS_CODE_ERROR),
		StatusCode:    code,
		StatusMessage: sp.GetStatus().GetMessage(),
		Resource:      r,
		Attributes:    attrs,
	}
}

// raw keeps an attribute's JSON type: strings, numbers and booleans as
// themselves, anything else (arrays, maps, bytes) as text.
func raw(v *common.AnyValue) json.RawMessage {
	var x any
	switch t := v.GetValue().(type) {
	case *common.AnyValue_StringValue:
		x = t.StringValue
	case *common.AnyValue_IntValue:
		x = t.IntValue
	case *common.AnyValue_DoubleValue:
		x = t.DoubleValue
	case *common.AnyValue_BoolValue:
		x = t.BoolValue
	default:
		x = text(v)
	}
	b, err := json.Marshal(x)
	if err != nil { // NaN or Inf
		b, _ = json.Marshal(fmt.Sprint(x))
	}
	return b
}

func text(v *common.AnyValue) string {
	switch t := v.GetValue().(type) {
	case *common.AnyValue_StringValue:
		return t.StringValue
	case *common.AnyValue_IntValue:
		return strconv.FormatInt(t.IntValue, 10)
	case *common.AnyValue_DoubleValue:
		return strconv.FormatFloat(t.DoubleValue, 'g', -1, 64)
	case *common.AnyValue_BoolValue:
		return strconv.FormatBool(t.BoolValue)
	case nil:
		return ""
	default:
		b, _ := json.Marshal(v)
		return string(b)
	}
}
