package natsport

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"agentk/contracts"
	"agentk/services/gate/internal/policy"
)

// ScopeName is the instrumentation scope of the gate's spans and metrics.
const ScopeName = "agentk/services/gate"

// Telemetry records one span per decision, with every check's inputs and
// result, and counts decisions by verdict and failures by check. A nil
// *Telemetry records nothing.
type Telemetry struct {
	tracer    trace.Tracer
	decisions metric.Int64Counter
	failures  metric.Int64Counter
	rejects   metric.Int64Counter
}

// NewTelemetry builds the gate's instruments from the providers.
func NewTelemetry(tp trace.TracerProvider, mp metric.MeterProvider) (*Telemetry, error) {
	m := mp.Meter(ScopeName)
	t := &Telemetry{tracer: tp.Tracer(ScopeName)}
	var err error
	if t.decisions, err = m.Int64Counter("agentk.gate.decisions", metric.WithDescription("Gate decisions by verdict.")); err != nil {
		return nil, fmt.Errorf("gate telemetry: %w", err)
	}
	if t.failures, err = m.Int64Counter("agentk.gate.check_failures", metric.WithDescription("Failed gate checks by check name.")); err != nil {
		return nil, fmt.Errorf("gate telemetry: %w", err)
	}
	if t.rejects, err = m.Int64Counter("agentk.gate.reviews_rejected", metric.WithDescription("Reviews that did not verify; no decision was made.")); err != nil {
		return nil, fmt.Errorf("gate telemetry: %w", err)
	}
	return t, nil
}

func (t *Telemetry) rejected(ctx context.Context) {
	if t == nil {
		return
	}
	t.rejects.Add(ctx, 1)
}

func (t *Telemetry) observe(ctx context.Context, in policy.Input, d contracts.DecisionV1) {
	if t == nil {
		return
	}
	attrs := []attribute.KeyValue{
		attribute.String("agentk.decision_id", d.DecisionID),
		attribute.String("agentk.incident_id", d.IncidentID),
		attribute.String("agentk.investigation_id", d.InvestigationID),
		attribute.String("agentk.service", d.Service),
		attribute.String("agentk.gate.action", d.Action),
		attribute.String("agentk.gate.verdict", d.Verdict),
		attribute.StringSlice("agentk.gate.failed_checks", d.FailedChecks),
		attribute.String("agentk.gate.diagnosis", d.Diagnosis),
		attribute.Float64("agentk.gate.confidence", d.Confidence),
		attribute.Int("agentk.gate.evidence_rejected", in.EvidenceRejected),
	}
	for _, c := range d.Checks {
		p := "agentk.gate.check." + c.Name
		attrs = append(attrs, attribute.Bool(p+".passed", c.Passed), attribute.String(p+".reason", c.Reason))
		for k, v := range c.Inputs {
			attrs = append(attrs, attribute.String(p+".input."+k, v))
		}
	}
	_, span := t.tracer.Start(ctx, "gate.decide", trace.WithAttributes(attrs...))
	span.End()
	t.decisions.Add(ctx, 1, metric.WithAttributes(attribute.String("verdict", d.Verdict)))
	for _, f := range d.FailedChecks {
		t.failures.Add(ctx, 1, metric.WithAttributes(attribute.String("check", f)))
	}
}
