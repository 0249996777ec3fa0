package bus_test

import (
	"context"
	"errors"
	"testing"

	"agentk/contracts/envelope"
	"agentk/platform/bus"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

type sealedThing struct {
	ID string `json:"id"`
}

func TestSealed(t *testing.T) {
	t.Parallel()
	value := &sealedThing{ID: "from-value"}
	for _, tc := range []struct {
		name    string
		out     bus.Out
		subject string
		want    string
		ok      bool
	}{
		{"the value the handler sealed", bus.Out{Envelope: envelope.Envelope{Subject: "s.v1", Payload: []byte(`{"id":"from-payload"}`)}, Value: value}, "s.v1", "from-value", true},
		{"no value: the payload decoded", bus.Out{Envelope: envelope.Envelope{Subject: "s.v1", Payload: []byte(`{"id":"from-payload"}`)}}, "s.v1", "from-payload", true},
		{"a value of another type: the payload decoded", bus.Out{Envelope: envelope.Envelope{Subject: "s.v1", Payload: []byte(`{"id":"from-payload"}`)}, Value: "other"}, "s.v1", "from-payload", true},
		{"another subject", bus.Out{Envelope: envelope.Envelope{Subject: "t.v1", Payload: []byte(`{"id":"x"}`)}, Value: value}, "s.v1", "", false},
		{"a payload that is not one", bus.Out{Envelope: envelope.Envelope{Subject: "s.v1", Payload: []byte(`[1]`)}}, "s.v1", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := bus.Sealed[sealedThing](tc.out, tc.subject)
			require.Equal(t, tc.ok, ok)
			if ok {
				require.Equal(t, tc.want, got.ID)
			}
		})
	}
}

func TestTraced(t *testing.T) {
	t.Parallel()
	rec := tracetest.NewSpanRecorder()
	tracer := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)).Tracer("test")
	outs := []bus.Out{{MsgID: "a"}, {MsgID: "b"}}
	var seen []string
	observe := func(_ context.Context, span trace.Span, o bus.Out) {
		require.True(t, span.IsRecording())
		seen = append(seen, o.MsgID)
	}
	ok := bus.Traced(tracer, "svc.handle", func(context.Context, bus.Message) ([]bus.Out, error) { return outs, nil }, observe)
	got, err := ok(context.Background(), bus.Message{})
	require.NoError(t, err)
	require.Equal(t, outs, got)
	require.Equal(t, []string{"a", "b"}, seen)

	boom := errors.New("boom")
	failing := bus.Traced(tracer, "svc.fail", func(context.Context, bus.Message) ([]bus.Out, error) { return nil, boom }, observe)
	_, err = failing(context.Background(), bus.Message{})
	require.ErrorIs(t, err, boom)
	require.Equal(t, []string{"a", "b"}, seen, "a failing handler's outputs are not observed")

	spans := rec.Ended()
	require.Len(t, spans, 2)
	require.Equal(t, "svc.handle", spans[0].Name())
	require.Equal(t, codes.Unset, spans[0].Status().Code)
	require.Equal(t, "svc.fail", spans[1].Name())
	require.Equal(t, codes.Error, spans[1].Status().Code)
}
