package executor

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	"agentk/contracts/envelope"
	"agentk/platform/telemetry"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/trace"
)

// A record the executor logs while serving a call carries the trace of the
// call's span (the sandbox.tool span in production), so SigNoz links the log
// line to the incident's trace.
func TestHandleLogsWithTheCallsTrace(t *testing.T) {
	t.Parallel()
	sbx := signer(t)
	kr, err := envelope.NewKeyring(envelope.KeyEntry{KeyID: sbx.KeyID(), Role: envelope.RoleSandbox})
	require.NoError(t, err)
	var buf bytes.Buffer
	ex := &Executor{Keyring: kr, Signer: sbx, Now: func() time.Time { return time.Date(2026, 11, 4, 10, 20, 0, 0, time.UTC) },
		Logger: slog.New(telemetry.NewTraceHandler(slog.NewJSONHandler(&buf, nil))).With("service", "sandbox")}
	sc := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID:    trace.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36},
		SpanID:     trace.SpanID{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7},
		TraceFlags: trace.FlagsSampled,
	})
	ctx := trace.ContextWithSpanContext(context.Background(), sc)

	_, err = ex.Handle(ctx, []byte("not an envelope"))
	require.NoError(t, err, "a rejected call is a reply, not an error")

	var rec map[string]any
	require.NoError(t, json.Unmarshal(buf.Bytes(), &rec), buf.String())
	require.Equal(t, "tool call rejected", rec["msg"])
	require.Equal(t, "sandbox", rec["service"])
	require.Equal(t, sc.TraceID().String(), rec["trace_id"])
	require.Equal(t, sc.SpanID().String(), rec["span_id"])
}
