package httpport

import (
	"net/http"

	"agentk/contracts/envelope"
	"agentk/platform/telemetry/role"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Traced wraps the webhook handler in the incident's root span: every hop of
// the pipeline, to the deployer's action, continues this trace. The webhook
// is a trust boundary, so a traceparent the sender put in the request is
// linked, never adopted as the parent.
func Traced(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := role.With(r.Context(), envelope.RoleIngester)
		opts := []trace.SpanStartOption{trace.WithNewRoot(), trace.WithSpanKind(trace.SpanKindServer),
			trace.WithAttributes(
				attribute.String("http.request.method", r.Method),
				attribute.String("http.route", Path),
				attribute.String("url.path", r.URL.Path),
			)}
		remote := propagation.TraceContext{}.Extract(ctx, propagation.HeaderCarrier(r.Header))
		if sc := trace.SpanContextFromContext(remote); sc.IsValid() {
			opts = append(opts, trace.WithLinks(trace.Link{SpanContext: sc}))
		}
		ctx, span := otel.Tracer(ScopeName).Start(ctx, r.Method+" "+Path, opts...)
		defer span.End()
		sw := &statusWriter{ResponseWriter: w, code: http.StatusOK}
		h.ServeHTTP(sw, r.WithContext(ctx))
		span.SetAttributes(attribute.Int("http.response.status_code", sw.code))
		if sw.code >= 500 {
			span.SetStatus(codes.Error, http.StatusText(sw.code))
		}
	})
}

type statusWriter struct {
	http.ResponseWriter
	code int
}

func (s *statusWriter) WriteHeader(code int) {
	s.code = code
	s.ResponseWriter.WriteHeader(code)
}
