package telemetry_test

import (
	"bytes"
	"context"
	"encoding/json"
	"go.opentelemetry.io/otel"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"agentk/platform/telemetry"

	"github.com/stretchr/testify/require"
)

// collector counts OTLP/HTTP requests per path on loopback.
func collector(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var traces atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/traces" {
			traces.Add(1)
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(srv.Close)
	return srv, &traces
}

// Not parallel: Setup installs process globals.
func TestExportSwitch(t *testing.T) {
	cases := []struct {
		name       string
		disabled   string
		wantExport bool
	}{
		{name: "disabled builds providers and exports nothing", disabled: "1", wantExport: false},
		{name: "enabled exports to the configured endpoint", disabled: "", wantExport: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv, traces := collector(t)
			env := map[string]string{
				telemetry.EnvDisabled: tc.disabled,
				telemetry.EnvEndpoint: srv.URL,
				telemetry.EnvHeaders:  "signoz-ingestion-key=abc%3D",
			}
			p, err := telemetry.Setup(context.Background(), "gate", func(k string) string { return env[k] })
			require.NoError(t, err)
			require.Equal(t, tc.wantExport, p.Exporting())
			_, span := telemetry.Tracer("test").Start(context.Background(), "work")
			require.True(t, span.SpanContext().IsValid(), "spans are recorded either way")
			span.End()
			require.NoError(t, p.Tracer.ForceFlush(context.Background()))
			require.NoError(t, p.Shutdown(context.Background()))
			if tc.wantExport {
				require.Positive(t, traces.Load())
			} else {
				require.Zero(t, traces.Load())
			}
		})
	}
}

// With no OTLP endpoint nothing is exported and nothing complains: the SDK's
// localhost default is not dialled (it printed a connection error every few
// seconds). Not parallel: Setup installs process globals.
func TestNoEndpointNoExport(t *testing.T) {
	var complaints atomic.Int32
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(error) { complaints.Add(1) }))
	t.Cleanup(func() { otel.SetErrorHandler(otel.ErrorHandlerFunc(func(error) {})) })
	for _, role := range []string{"gate", ""} {
		var p *telemetry.Providers
		var err error
		if role == "" {
			p, err = telemetry.SetupServices(context.Background(), []string{"gate", "bridge"}, func(string) string { return "" })
		} else {
			p, err = telemetry.Setup(context.Background(), role, func(string) string { return "" })
		}
		require.NoError(t, err)
		require.False(t, p.Exporting())
		_, span := telemetry.Tracer("test").Start(context.Background(), "work")
		require.True(t, span.SpanContext().IsValid(), "spans are still recorded, for trace ids in logs")
		span.End()
		require.NoError(t, p.ForceFlush(context.Background()), "nothing dialled")
		require.NoError(t, p.Shutdown(context.Background()))
	}
	require.Zero(t, complaints.Load())
}

func TestSetupReportsBadVariables(t *testing.T) {
	env := map[string]string{
		telemetry.EnvProtocol:      "carrier-pigeon",
		telemetry.EnvHeaders:       "novalue",
		telemetry.EnvResourceAttrs: "=x",
	}
	_, err := telemetry.Setup(context.Background(), "gate", func(k string) string { return env[k] })
	require.ErrorIs(t, err, telemetry.ErrConfig)
	for _, v := range []string{telemetry.EnvProtocol, telemetry.EnvHeaders, telemetry.EnvResourceAttrs} {
		require.Contains(t, err.Error(), v)
	}
}

func TestTraceHandlerAddsIDs(t *testing.T) {
	p, err := telemetry.Setup(context.Background(), "gate", func(k string) string {
		if k == telemetry.EnvDisabled {
			return "1"
		}
		return ""
	})
	require.NoError(t, err)
	defer func() { _ = p.Shutdown(context.Background()) }()
	var buf bytes.Buffer
	log := slog.New(telemetry.NewTraceHandler(slog.NewJSONHandler(&buf, nil))).With("service", "gate")
	ctx, span := telemetry.Tracer("test").Start(context.Background(), "work")
	log.InfoContext(ctx, "inside")
	span.End()
	log.Info("outside")
	lines := bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n"))
	require.Len(t, lines, 2)
	var in, out map[string]any
	require.NoError(t, json.Unmarshal(lines[0], &in))
	require.NoError(t, json.Unmarshal(lines[1], &out))
	require.Equal(t, span.SpanContext().TraceID().String(), in["trace_id"])
	require.Equal(t, span.SpanContext().SpanID().String(), in["span_id"])
	require.Equal(t, "gate", in["service"])
	require.NotContains(t, out, "trace_id")
}
