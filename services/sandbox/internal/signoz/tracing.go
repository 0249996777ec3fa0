package signoz

import (
	"net/http"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// TracedTransport records one client span per SigNoz API request
// ("POST /api/v5/query_range"). It does not send traceparent: the pipeline's
// traces stay out of SigNoz's own.
func TracedTransport(next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return roundTripper(func(r *http.Request) (*http.Response, error) {
		ctx, span := otel.Tracer("agentk/services/sandbox").Start(r.Context(), r.Method+" "+r.URL.Path,
			trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
				attribute.String("http.request.method", r.Method),
				attribute.String("server.address", r.URL.Hostname()),
				attribute.String("url.path", r.URL.Path),
			))
		defer span.End()
		resp, err := next.RoundTrip(r.WithContext(ctx))
		if err != nil {
			span.RecordError(err)
			span.SetStatus(codes.Error, err.Error())
			return resp, err
		}
		span.SetAttributes(attribute.Int("http.response.status_code", resp.StatusCode))
		if resp.StatusCode >= 400 {
			span.SetStatus(codes.Error, resp.Status)
		}
		return resp, nil
	})
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
