package testkit

import (
	"compress/gzip"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	common "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/protobuf/proto"
)

// Span is one span an OTLPReceiver received, flattened.
type Span struct {
	Name string
	// Service is the resource's service.name.
	Service    string
	Start, End time.Time
	SpanID     string
	// Attrs and Resource hold string values (others as their text).
	Attrs, Resource map[string]string
}

// OTLPReceiver is an OTLP/HTTP receiver double on 127.0.0.1: it decodes
// each POST /v1/traces (protobuf, gzip or not, as the OpenTelemetry SDK's
// exporter sends it) with go.opentelemetry.io/proto/otlp and keeps the
// spans. Its URL is what a test gives as the OTLP endpoint; nothing leaves
// the machine.
type OTLPReceiver struct {
	URL string

	mu      sync.Mutex
	spans   []Span
	arrived chan struct{}
}

// StartOTLP starts a receiver; it stops when t ends.
func StartOTLP(t testing.TB) *OTLPReceiver {
	t.Helper()
	r := &OTLPReceiver{arrived: make(chan struct{}, 1)}
	srv := httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(srv.Close)
	r.URL = srv.URL
	return r
}

func (r *OTLPReceiver) serve(w http.ResponseWriter, req *http.Request) {
	if req.URL.Path != "/v1/traces" || req.Method != http.MethodPost {
		http.NotFound(w, req)
		return
	}
	var body io.Reader = req.Body
	if req.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = zr
	}
	b, err := io.ReadAll(body)
	var m coltrace.ExportTraceServiceRequest
	if err == nil {
		err = proto.Unmarshal(b, &m)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.add(&m)
	out, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

func (r *OTLPReceiver) add(m *coltrace.ExportTraceServiceRequest) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rs := range m.GetResourceSpans() {
		res := flatten(rs.GetResource().GetAttributes())
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				r.spans = append(r.spans, Span{
					Name: s.GetName(), Service: res["service.name"], SpanID: hex.EncodeToString(s.GetSpanId()),
					Start: time.Unix(0, int64(s.GetStartTimeUnixNano())).UTC(), End: time.Unix(0, int64(s.GetEndTimeUnixNano())).UTC(),
					Attrs: flatten(s.GetAttributes()), Resource: res,
				})
			}
		}
	}
	select {
	case r.arrived <- struct{}{}:
	default:
	}
}

func flatten(kvs []*common.KeyValue) map[string]string {
	out := map[string]string{}
	for _, kv := range kvs {
		v := kv.GetValue()
		if s, ok := v.GetValue().(*common.AnyValue_StringValue); ok {
			out[kv.GetKey()] = s.StringValue
			continue
		}
		out[kv.GetKey()] = v.String()
	}
	return out
}

// Spans returns the spans received so far named name ("" for all).
func (r *OTLPReceiver) Spans(name string) []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Span
	for _, s := range r.spans {
		if name == "" || s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// WaitSpans waits until at least n spans named name arrived, or fails t
// after within; it returns them all.
func (r *OTLPReceiver) WaitSpans(t testing.TB, name string, n int, within time.Duration) []Span {
	t.Helper()
	deadline := time.NewTimer(within)
	defer deadline.Stop()
	for {
		if got := r.Spans(name); len(got) >= n {
			return got
		}
		select {
		case <-r.arrived:
		case <-deadline.C:
			t.Fatalf("testkit: %d %q spans after %s, want %d: %+v", len(r.Spans(name)), name, within, n, r.Spans(name))
		}
	}
}
