// Package otlptest is an OTLP/HTTP receiver (protobuf, as the OpenTelemetry
// SDK exporters send it) on loopback, for tests that assert what agentk
// exports without ever reaching a real collector.
package otlptest

import (
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"

	colmetric "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	common "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/protobuf/proto"
)

// Span is one received span, flattened.
type Span struct {
	// Service is the resource's service.name.
	Service  string
	Scope    string
	Name     string
	TraceID  string
	SpanID   string
	ParentID string
	// Attrs are the span's attributes, values formatted as text.
	Attrs map[string]string
	// Resource are the resource's attributes.
	Resource map[string]string
}

// Point is one received metric data point (sums, gauges and histograms; a
// histogram's Value is its sum, Count its count).
type Point struct {
	Service string
	Metric  string
	Attrs   map[string]string
	Value   float64
	Count   uint64
}

// Receiver collects what is posted to /v1/traces and /v1/metrics.
type Receiver struct {
	// URL is the base URL: OTEL_EXPORTER_OTLP_ENDPOINT.
	URL string
	srv *httptest.Server

	mu       sync.Mutex
	spans    []Span
	points   []Point
	requests int
	errs     []error
}

// Start starts a receiver on 127.0.0.1; Close stops it.
func Start() *Receiver {
	r := &Receiver{}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	r.URL = r.srv.URL
	return r
}

// Close stops the receiver.
func (r *Receiver) Close() { r.srv.Close() }

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	r.requests++
	r.mu.Unlock()
	var body io.Reader = req.Body
	if req.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(req.Body)
		if err != nil {
			r.fail(w, err)
			return
		}
		body = zr
	}
	b, err := io.ReadAll(body)
	if err != nil {
		r.fail(w, err)
		return
	}
	var resp proto.Message
	switch req.URL.Path {
	case "/v1/traces":
		var m coltrace.ExportTraceServiceRequest
		if err := proto.Unmarshal(b, &m); err != nil {
			r.fail(w, err)
			return
		}
		r.addTraces(&m)
		resp = &coltrace.ExportTraceServiceResponse{}
	case "/v1/metrics":
		var m colmetric.ExportMetricsServiceRequest
		if err := proto.Unmarshal(b, &m); err != nil {
			r.fail(w, err)
			return
		}
		r.addMetrics(&m)
		resp = &colmetric.ExportMetricsServiceResponse{}
	default:
		http.NotFound(w, req)
		return
	}
	out, _ := proto.Marshal(resp)
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

func (r *Receiver) fail(w http.ResponseWriter, err error) {
	r.mu.Lock()
	r.errs = append(r.errs, err)
	r.mu.Unlock()
	http.Error(w, err.Error(), http.StatusBadRequest)
}

func (r *Receiver) addTraces(m *coltrace.ExportTraceServiceRequest) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rs := range m.GetResourceSpans() {
		res := attrs(rs.GetResource().GetAttributes())
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				r.spans = append(r.spans, Span{
					Service: res["service.name"], Scope: ss.GetScope().GetName(), Name: s.GetName(),
					TraceID: fmt.Sprintf("%x", s.GetTraceId()), SpanID: fmt.Sprintf("%x", s.GetSpanId()),
					ParentID: fmt.Sprintf("%x", s.GetParentSpanId()), Attrs: attrs(s.GetAttributes()), Resource: res,
				})
			}
		}
	}
}

func (r *Receiver) addMetrics(m *colmetric.ExportMetricsServiceRequest) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rm := range m.GetResourceMetrics() {
		svc := attrs(rm.GetResource().GetAttributes())["service.name"]
		for _, sm := range rm.GetScopeMetrics() {
			for _, met := range sm.GetMetrics() {
				add := func(a []*common.KeyValue, v float64, n uint64) {
					r.points = append(r.points, Point{Service: svc, Metric: met.GetName(), Attrs: attrs(a), Value: v, Count: n})
				}
				for _, dp := range met.GetSum().GetDataPoints() {
					add(dp.GetAttributes(), dp.GetAsDouble()+float64(dp.GetAsInt()), 1)
				}
				for _, dp := range met.GetGauge().GetDataPoints() {
					add(dp.GetAttributes(), dp.GetAsDouble()+float64(dp.GetAsInt()), 1)
				}
				for _, dp := range met.GetHistogram().GetDataPoints() {
					add(dp.GetAttributes(), dp.GetSum(), dp.GetCount())
				}
			}
		}
	}
}

// Spans returns every span received so far.
func (r *Receiver) Spans() []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Span(nil), r.spans...)
}

// Points returns every metric data point received so far.
func (r *Receiver) Points() []Point {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Point(nil), r.points...)
}

// MetricNames returns the distinct metric names received, sorted.
func (r *Receiver) MetricNames() []string {
	seen := map[string]bool{}
	for _, p := range r.Points() {
		seen[p.Metric] = true
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Requests is how many export requests arrived, on any path.
func (r *Receiver) Requests() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.requests
}

// Errors are the requests that could not be decoded.
func (r *Receiver) Errors() []error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]error(nil), r.errs...)
}

func attrs(kvs []*common.KeyValue) map[string]string {
	out := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		out[kv.GetKey()] = text(kv.GetValue())
	}
	return out
}

func text(v *common.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *common.AnyValue_StringValue:
		return x.StringValue
	case *common.AnyValue_IntValue:
		return fmt.Sprint(x.IntValue)
	case *common.AnyValue_DoubleValue:
		return fmt.Sprint(x.DoubleValue)
	case *common.AnyValue_BoolValue:
		return fmt.Sprint(x.BoolValue)
	case *common.AnyValue_ArrayValue:
		parts := make([]string, 0, len(x.ArrayValue.GetValues()))
		for _, e := range x.ArrayValue.GetValues() {
			parts = append(parts, text(e))
		}
		return strings.Join(parts, ",")
	}
	return ""
}
