package natsport

import (
	"context"

	"agentk/contracts"
	"agentk/platform/bus"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// ScopeName is the instrumentation scope of the reviewer's spans and metrics.
const ScopeName = "agentk/services/reviewer"

// Traced wraps the report handler in the reviewer.review span and counts
// reviews and claims: agentk.reviewer.reviews{insufficient_evidence},
// agentk.reviewer.claims{kept}. Attributes come from the review it sealed.
func Traced(next bus.HandlerFunc) bus.HandlerFunc {
	return bus.Traced(otel.Tracer(ScopeName), "reviewer.review", next, func(ctx context.Context, span trace.Span, o bus.Out) {
		rv, ok := bus.Sealed[contracts.ReviewV1](o, contracts.SubjectReview)
		if !ok {
			return
		}
		span.SetAttributes(
			attribute.String("agentk.review_id", rv.ReviewID),
			attribute.String("agentk.incident_id", rv.IncidentID),
			attribute.String("agentk.investigation_id", rv.InvestigationID),
			attribute.Int("agentk.review.kept", len(rv.Kept)),
			attribute.Int("agentk.review.dropped", len(rv.Dropped)),
			attribute.Bool("agentk.review.insufficient_evidence", rv.InsufficientEvidence),
		)
		meter := otel.Meter(ScopeName)
		if reviews, err := meter.Int64Counter("agentk.reviewer.reviews", metric.WithDescription("Reviews published, by whether any claim survived.")); err == nil {
			reviews.Add(ctx, 1, metric.WithAttributes(attribute.Bool("insufficient_evidence", rv.InsufficientEvidence)))
		}
		if claims, err := meter.Int64Counter("agentk.reviewer.claims", metric.WithDescription("Claims reviewed, by kept (evidence-backed) or dropped.")); err == nil {
			claims.Add(ctx, int64(len(rv.Kept)), metric.WithAttributes(attribute.Bool("kept", true)))
			claims.Add(ctx, int64(len(rv.Dropped)), metric.WithAttributes(attribute.Bool("kept", false)))
		}
	})
}
