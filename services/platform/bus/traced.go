package bus

import (
	"context"
	"encoding/json"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Traced wraps next in one span named name. A handler's error is recorded
// on the span and returned unchanged; otherwise observe sees each output the
// handler returned, with the span, so that a service sets its span
// attributes and metrics from what it sealed (Sealed), never by
// re-running the handler's work.
func Traced(tracer trace.Tracer, name string, next HandlerFunc, observe func(context.Context, trace.Span, Out)) HandlerFunc {
	return func(ctx context.Context, m Message) ([]Out, error) {
		ctx, span := tracer.Start(ctx, name)
		defer span.End()
		outs, err := next(ctx, m)
		if err != nil {
			span.RecordError(err)
			span.SetStatus(codes.Error, err.Error())
			return outs, err
		}
		for _, o := range outs {
			observe(ctx, span, o)
		}
		return outs, nil
	}
}

// Sealed returns the value an output on subject was sealed from: Out.Value
// when the handler set it to a *T, else its payload decoded (an output built
// without Value). It reports false for another subject or a payload that is
// not a T.
func Sealed[T any](o Out, subject string) (*T, bool) {
	if o.Envelope.Subject != subject {
		return nil, false
	}
	if v, ok := o.Value.(*T); ok && v != nil {
		return v, true
	}
	var v T
	if json.Unmarshal(o.Envelope.Payload, &v) != nil {
		return nil, false
	}
	return &v, true
}
