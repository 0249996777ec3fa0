package bus

import (
	"context"
	"strings"

	"github.com/nats-io/nats.go"
	"go.opentelemetry.io/otel/propagation"
)

// Header keys the bus sets. Every key is lowercase; Nats-Msg-Id keeps the
// spelling JetStream requires.
const (
	// HeaderCorrelationID carries the id shared by every message one alert
	// caused.
	HeaderCorrelationID = "correlation_id"
	// HeaderTraceparent is the W3C trace context header.
	HeaderTraceparent = "traceparent"
	// HeaderDLQError, HeaderDLQReason, HeaderDLQHandler and HeaderDLQDeliveries
	// describe why and where a message was dead-lettered.
	HeaderDLQError      = "agentk-dlq-error"
	HeaderDLQReason     = "agentk-dlq-reason"
	HeaderDLQHandler    = "agentk-dlq-handler"
	HeaderDLQDeliveries = "agentk-dlq-deliveries"
	HeaderDLQStreamSeq  = "agentk-dlq-stream-seq"
	// HeaderError carries a Serve handler's error back to Request; with
	// HeaderErrorPermanent "true" when the handler returned a Permanent error.
	HeaderError          = "agentk-error"
	HeaderErrorPermanent = "agentk-error-permanent"
)

// propagator writes and reads traceparent/tracestate and baggage. It is the
// W3C one whatever the global otel propagator is, so trace context crosses the
// bus even in a process that never configured otel.
var propagator = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})

type correlationKey struct{}

// WithCorrelationID returns ctx carrying id; Publish and Request put it in the
// correlation_id header.
func WithCorrelationID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, correlationKey{}, id)
}

// CorrelationID returns the correlation id ctx carries, or "".
func CorrelationID(ctx context.Context) string {
	s, _ := ctx.Value(correlationKey{}).(string)
	return s
}

// setHeaders writes md (lowercased keys), the correlation id and the trace
// context of ctx into h.
func setHeaders(ctx context.Context, h nats.Header, md map[string]string) {
	for k, v := range md {
		h[strings.ToLower(k)] = []string{v}
	}
	if id := CorrelationID(ctx); id != "" {
		if _, set := h[HeaderCorrelationID]; !set {
			h[HeaderCorrelationID] = []string{id}
		}
	}
	carrier := propagation.MapCarrier{}
	propagator.Inject(ctx, carrier)
	for k, v := range carrier {
		h[strings.ToLower(k)] = []string{v}
	}
}

// metadata returns h as a map with lowercase keys; repeated values are joined
// with ", " as HTTP does.
func metadata(h nats.Header) map[string]string {
	md := make(map[string]string, len(h))
	for k, v := range h {
		md[strings.ToLower(k)] = strings.Join(v, ", ")
	}
	return md
}

// extract returns ctx with the remote trace context and correlation id of md.
func extract(ctx context.Context, md map[string]string) context.Context {
	ctx = propagator.Extract(ctx, propagation.MapCarrier(md))
	if id := md[HeaderCorrelationID]; id != "" {
		ctx = WithCorrelationID(ctx, id)
	}
	return ctx
}
