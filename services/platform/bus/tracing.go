package bus

import "go.opentelemetry.io/otel/attribute"

// messagingAttrs are the OpenTelemetry messaging attributes of every span the
// bus starts (send, consume, request, serve).
func messagingAttrs(subject string) []attribute.KeyValue {
	return []attribute.KeyValue{
		attribute.String("messaging.system", "nats"),
		attribute.String("messaging.destination.name", subject),
	}
}
