package natsport

import (
	"context"
	"encoding/json"

	"agentk/contracts"
	"agentk/platform/bus"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
)

// ScopeName is the instrumentation scope of the reviewer's spans and metrics.
const ScopeName = "agentk/services/reviewer"

// Traced wraps the report handler in the reviewer.review span and counts
// reviews and claims: agentk.reviewer.reviews{insufficient_evidence},
// agentk.reviewer.claims{kept}. Attributes come from the review it sealed.
func Traced(next bus.HandlerFunc) bus.HandlerFunc {
	return func(ctx context.Context, m bus.Message) ([]bus.Out, error) {
		ctx, span := otel.Tracer(ScopeName).Start(ctx, "reviewer.review")
		defer span.End()
		outs, err := next(ctx, m)
		if err != nil {
			span.RecordError(err)
			span.SetStatus(codes.Error, err.Error())
			return outs, err
		}
		meter := otel.Meter(ScopeName)
		reviews, _ := meter.Int64Counter("agentk.reviewer.reviews", metric.WithDescription("Reviews published, by whether any claim survived."))
		claims, _ := meter.Int64Counter("agentk.reviewer.claims", metric.WithDescription("Claims reviewed, by kept (evidence-backed) or dropped."))
		for _, o := range outs {
			rv, ok := reviewOf(o)
			if !ok {
				continue
			}
			span.SetAttributes(
				attribute.String("agentk.review_id", rv.ReviewID),
				attribute.String("agentk.incident_id", rv.IncidentID),
				attribute.String("agentk.investigation_id", rv.InvestigationID),
				attribute.Int("agentk.review.kept", len(rv.Kept)),
				attribute.Int("agentk.review.dropped", len(rv.Dropped)),
				attribute.Bool("agentk.review.insufficient_evidence", rv.InsufficientEvidence),
			)
			if reviews != nil {
				reviews.Add(ctx, 1, metric.WithAttributes(attribute.Bool("insufficient_evidence", rv.InsufficientEvidence)))
			}
			if claims != nil {
				claims.Add(ctx, int64(len(rv.Kept)), metric.WithAttributes(attribute.Bool("kept", true)))
				claims.Add(ctx, int64(len(rv.Dropped)), metric.WithAttributes(attribute.Bool("kept", false)))
			}
		}
		return outs, nil
	}
}

// reviewOf is the review an output carries: the value the handler sealed,
// else its payload decoded.
func reviewOf(o bus.Out) (*contracts.ReviewV1, bool) {
	if o.Envelope.Subject != contracts.SubjectReview {
		return nil, false
	}
	if rv, ok := o.Value.(*contracts.ReviewV1); ok && rv != nil {
		return rv, true
	}
	var rv contracts.ReviewV1
	if json.Unmarshal(o.Envelope.Payload, &rv) != nil {
		return nil, false
	}
	return &rv, true
}
