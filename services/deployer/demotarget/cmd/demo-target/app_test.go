package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

func newTestApp(t *testing.T, fault string, faults faultSet) (*app, *tracetest.InMemoryExporter) {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return newApp("shop-api", "vX", fault, faults, tp.Tracer("t"), slog.New(slog.NewTextHandler(io.Discard, nil))), exp
}

func statuses(t *testing.T, h http.Handler, n int) map[int]int {
	t.Helper()
	got := map[int]int{}
	for range n {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/ask", nil))
		got[rec.Code]++
	}
	return got
}

func TestAsk(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name         string
		releaseFault string
		faults       string
		want         map[int]int
	}{
		{name: "healthy release", want: map[int]int{200: 10}},
		{name: "bad release fails half", releaseFault: "bad_release", want: map[int]int{200: 5, 500: 5}},
		{name: "dependency outage", faults: FaultDependency, want: map[int]int{502: 10}},
		{name: "db pool exhaustion", faults: FaultDBPool, want: map[int]int{503: 7, 200: 3}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f, err := parseFaults(c.faults)
			require.NoError(t, err)
			a, _ := newTestApp(t, c.releaseFault, f)
			require.Equal(t, c.want, statuses(t, a.routes(), 10))
		})
	}
}

func TestFaultSwitch(t *testing.T) {
	t.Parallel()
	a, _ := newTestApp(t, "", faultSet{})
	h := a.routes()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/admin/faults?set=dependency_outage", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	require.Equal(t, map[int]int{502: 2}, statuses(t, h, 2))

	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/admin/faults?set=cosmic_rays", nil))
	require.Equal(t, http.StatusBadRequest, rec.Code)

	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/admin/faults?set=", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	require.Equal(t, map[int]int{200: 2}, statuses(t, h, 2))
}

func TestDeploymentMarkerSpan(t *testing.T) {
	t.Parallel()
	a, exp := newTestApp(t, "", faultSet{})
	a.marker(context.Background(), "v1", "deploy-7")
	spans := exp.GetSpans()
	require.Len(t, spans, 1)
	require.Equal(t, "deployment.marker", spans[0].Name)
	attrs := map[string]string{}
	for _, kv := range spans[0].Attributes {
		attrs[string(kv.Key)] = kv.Value.AsString()
	}
	require.Equal(t, map[string]string{"deployment.version": "vX", "deployment.previous_version": "v1", "deployment.id": "deploy-7"}, attrs)
}
