package up

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"agentk/cmd/agentk/internal/command"
	"agentk/platform/telemetry"
	"agentk/platform/telemetry/otlptest"

	"github.com/stretchr/testify/require"
)

// Not parallel: setupTelemetry installs process globals.
func TestSetupTelemetry(t *testing.T) {
	cases := []struct {
		name     string
		service  string
		disabled string
		want     string // service.name of a span marked as the gate's; "" = nothing exported
	}{
		{name: "agentk up: each service under its own name", service: "", want: "agentk-gate"},
		{name: "agentk gate", service: "gate", want: "agentk-gate"},
		{name: "agentk bridge: everything is the bridge's", service: "bridge", want: "agentk-bridge"},
		{name: "disabled: nothing leaves the process", service: "", disabled: "1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rcv := otlptest.Start()
			defer rcv.Close()
			var logs bytes.Buffer
			env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": rcv.URL, "AGENTK_OTEL_DISABLED": tc.disabled}
			c := &command.Env{Stderr: &logs, Getenv: func(k string) string { return env[k] }}
			shutdown, err := setupTelemetry(context.Background(), c, tc.service)
			require.NoError(t, err)
			ctx, span := telemetry.Tracer("test").Start(telemetry.WithService(context.Background(), "gate"), "work")
			newLogger(c).InfoContext(ctx, "inside a span")
			span.End()
			require.NoError(t, shutdown(context.Background()))

			var rec map[string]any
			require.NoError(t, json.Unmarshal(logs.Bytes(), &rec))
			require.Equal(t, span.SpanContext().TraceID().String(), rec["trace_id"], "logs carry the trace id, exported or not")
			if tc.want == "" {
				require.Zero(t, rcv.Requests())
				return
			}
			spans := rcv.Spans()
			require.Len(t, spans, 1)
			require.Equal(t, tc.want, spans[0].Service)
		})
	}
}
