package livesignoz_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"agentk/cmd/agentk/livesignoz"
	"agentk/contracts/incident"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// TestRealExporterToQueryRange sends spans through the OpenTelemetry SDK's
// own OTLP/HTTP exporter (protobuf, gzip) and reads them back through
// SigNoz's query API: a count of the service's error spans.
func TestRealExporterToQueryRange(t *testing.T) {
	st := livesignoz.New("k", nil)
	otlp := httptest.NewServer(st.OTLP())
	defer otlp.Close()
	q := httptest.NewServer(st.Query())
	defer q.Close()

	ctx := context.Background()
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(otlp.URL+"/v1/traces"), otlptracehttp.WithCompression(otlptracehttp.GzipCompression))
	if err != nil {
		t.Fatal(err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp), sdktrace.WithResource(resource.NewSchemaless(
		attribute.String("service.name", "shop-api"), attribute.String("service.version", "v2"))))
	tr := tp.Tracer("test")
	start := time.Now()
	for i := range 4 {
		_, s := tr.Start(ctx, "GET /ask", trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attribute.Int("http.response.status_code", 200+300*(i%2))))
		if i%2 == 1 {
			s.SetStatus(codes.Error, "nil template")
		}
		s.End()
	}
	_, m := tr.Start(ctx, "deployment.marker", trace.WithAttributes(attribute.String("deployment.version", "v2")))
	m.End()
	if err := tp.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}

	spans := st.Spans(func(s incident.Span) bool { return s.Kind == 2 })
	if len(spans) != 4 {
		t.Fatalf("%d server spans, want 4", len(spans))
	}
	errs := 0
	for _, s := range spans {
		if s.HasError {
			errs++
			if s.StatusMessage != "nil template" || s.StatusCode != 2 {
				t.Errorf("error span: %+v", s)
			}
		}
		if s.Service() != "shop-api" || len(s.TraceID) != 32 || len(s.SpanID) != 16 || s.Timestamp.Before(start.Add(-time.Second)) {
			t.Errorf("span: %+v", s)
		}
		if string(s.Attributes["http.response.status_code"]) != "200" && string(s.Attributes["http.response.status_code"]) != "500" {
			t.Errorf("status attribute kept as a number: %s", s.Attributes["http.response.status_code"])
		}
	}
	if errs != 2 {
		t.Fatalf("%d error spans, want 2", errs)
	}

	body := `{"schemaVersion":"v1","start":` + itoa(start.Add(-time.Minute).UnixMilli()) + `,"end":` + itoa(time.Now().Add(time.Minute).UnixMilli()) +
		`,"requestType":"scalar","compositeQuery":{"queries":[{"type":"builder_query","spec":{"name":"A","signal":"traces",` +
		`"filter":{"expression":"service.name = 'shop-api' AND has_error = true"},"aggregations":[{"expression":"count()"}]}}]}}`
	req, _ := http.NewRequest(http.MethodPost, q.URL+"/api/v5/query_range", strings.NewReader(body))
	req.Header.Set("SIGNOZ-API-KEY", "k")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("query_range: %d %s", resp.StatusCode, b)
	}
	var out struct {
		Data struct {
			Data struct {
				Results []struct {
					Data [][]any `json:"data"`
				} `json:"results"`
			} `json:"data"`
		} `json:"data"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if r := out.Data.Data.Results; len(r) != 1 || len(r[0].Data) != 1 || r[0].Data[0][len(r[0].Data[0])-1] != float64(2) {
		t.Fatalf("error count: %s", b)
	}

	// Without the key: SigNoz's 401.
	resp, err = http.Post(q.URL+"/api/v5/query_range", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("no key: %d", resp.StatusCode)
	}
}

// TestRefusesOtherPeersAndFormats: a peer outside the allowed network, JSON
// instead of protobuf and other signals are refused and nothing is stored.
func TestRefusesOtherPeersAndFormats(t *testing.T) {
	_, only, _ := net.ParseCIDR("10.99.0.0/16")
	st := livesignoz.New("k", only.Contains)
	srv := httptest.NewServer(st.OTLP())
	defer srv.Close()
	resp, err := http.Post(srv.URL+"/v1/traces", "application/x-protobuf", bytes.NewReader(nil))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a loopback peer outside 10.99.0.0/16: %d", resp.StatusCode)
	}
	open := httptest.NewServer(livesignoz.New("k", nil).OTLP())
	defer open.Close()
	for path, ct := range map[string]string{"/v1/traces": "application/json", "/v1/metrics": "application/x-protobuf"} {
		resp, err := http.Post(open.URL+path, ct, strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode/100 != 4 {
			t.Errorf("%s %s: %d", path, ct, resp.StatusCode)
		}
	}
	if _, n, refused := st.Stats(); n != 0 || refused != 1 {
		t.Fatalf("stored %d, refused %d", n, refused)
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }
