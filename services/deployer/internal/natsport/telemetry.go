package natsport

import (
	"context"

	"agentk/services/deployer/internal/rollback"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// ScopeName is the instrumentation scope of the deployer's spans and metrics.
const ScopeName = "agentk/services/deployer"

// startAction starts the deployer.action span, a child of the approval's
// delivery; the Docker API calls (the Docker client's own spans) and the
// compose run are its children.
func startAction(ctx context.Context) (context.Context, trace.Span) {
	return otel.Tracer(ScopeName).Start(ctx, "deployer.action")
}

// observeAction records res on span and counts it:
// agentk.deployer.actions{result} (the action's outcome) and
// agentk.deployer.recoveries{verified} once telemetry was checked.
func observeAction(ctx context.Context, span trace.Span, res rollback.Result, err error) {
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
		return
	}
	a := res.Action
	span.SetAttributes(
		attribute.String("agentk.action_id", a.ActionID),
		attribute.String("agentk.approval_id", a.ApprovalID),
		attribute.String("agentk.decision_id", a.DecisionID),
		attribute.String("agentk.incident_id", a.IncidentID),
		attribute.String("agentk.service", a.Service),
		attribute.String("agentk.action.outcome", a.Outcome),
		attribute.String("agentk.action.from_image", a.FromImage),
		attribute.String("agentk.action.to_image", a.ToImage),
		attribute.Bool("agentk.action.container_verified", a.ContainerVerified),
	)
	if a.Recovered != nil {
		span.SetAttributes(attribute.Bool("agentk.action.recovered", *a.Recovered))
	}
	m := otel.Meter(ScopeName)
	if c, cerr := m.Int64Counter("agentk.deployer.actions", metric.WithDescription("Actions settled, by result (the action's outcome).")); cerr == nil {
		c.Add(ctx, 1, metric.WithAttributes(attribute.String("result", a.Outcome)))
	}
	if a.Recovered != nil {
		if c, cerr := m.Int64Counter("agentk.deployer.recoveries", metric.WithDescription("Rollbacks whose recovery was checked in telemetry, by verified.")); cerr == nil {
			c.Add(ctx, 1, metric.WithAttributes(attribute.Bool("verified", *a.Recovered)))
		}
	}
}

// observeForged counts a message that failed verification:
// agentk.deployer.unverified{reason}. Its claimed ids go on the span under
// agentk.claimed.*, never under the ids an incident view reads.
func observeForged(ctx context.Context, span trace.Span, res rollback.Result) {
	u := res.Unverified
	span.SetStatus(codes.Error, "unverified approval: "+res.Refusal.Reason)
	span.SetAttributes(
		attribute.Bool("agentk.unverified", true),
		attribute.String("agentk.refusal", res.Refusal.Reason),
		attribute.String("agentk.claimed.approval_id", u.Approval.ApprovalID),
		attribute.String("agentk.claimed.incident_id", u.Approval.IncidentID),
		attribute.String("agentk.claimed.kid", u.KeyID),
	)
	if c, err := otel.Meter(ScopeName).Int64Counter("agentk.deployer.unverified",
		metric.WithDescription("Approvals that failed verification (forged, wrong key or role, tampered), by refusal reason; none was answered.")); err == nil {
		c.Add(ctx, 1, metric.WithAttributes(attribute.String("reason", res.Refusal.Reason)))
	}
}
