package httpport

import (
	"context"
	"fmt"

	"agentk/services/ingester/internal/incidents"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// ScopeName is the instrumentation scope of the ingester's metrics.
const ScopeName = "agentk/services/ingester"

// OTelMetrics counts alerts received, deduplicated and rejected (by reason)
// and incidents opened, as OpenTelemetry counters.
type OTelMetrics struct {
	received, deduplicated, rejected, opened, filed metric.Int64Counter
	// byOutcome holds the outcome attribute of every known outcome, built
	// once: an attribute set costs allocations on every alert otherwise.
	byOutcome map[incidents.Outcome]metric.AddOption
}

// outcomes are the outcomes whose attribute is built once.
var outcomes = []incidents.Outcome{incidents.Opened, incidents.Queued, incidents.Attached, incidents.Duplicate,
	incidents.Resolved, incidents.PartlyResolved, incidents.ResolvedUnknown, incidents.TestAck, incidents.NoData}

// NewOTelMetrics builds the counters from mp.
func NewOTelMetrics(mp metric.MeterProvider) (*OTelMetrics, error) {
	m := mp.Meter(ScopeName)
	var o OTelMetrics
	for _, c := range []struct {
		dst        *metric.Int64Counter
		name, desc string
	}{
		{&o.received, "agentk.ingester.alerts_received", "Alerts received in accepted webhook bodies."},
		{&o.deduplicated, "agentk.ingester.alerts_deduplicated", "Alerts attached to an open incident or re-delivered."},
		{&o.rejected, "agentk.ingester.alerts_rejected", "Webhook deliveries rejected, by reason."},
		{&o.opened, "agentk.ingester.incidents_opened", "Incidents opened (released or queued)."},
		{&o.filed, "agentk.ingester.alerts_filed", "Alerts filed, by outcome."},
	} {
		var err error
		if *c.dst, err = m.Int64Counter(c.name, metric.WithDescription(c.desc)); err != nil {
			return nil, fmt.Errorf("ingester metrics: %w", err)
		}
	}
	o.byOutcome = make(map[incidents.Outcome]metric.AddOption, len(outcomes))
	for _, out := range outcomes {
		o.byOutcome[out] = outcomeAttr(out)
	}
	return &o, nil
}

func outcomeAttr(out incidents.Outcome) metric.AddOption {
	return metric.WithAttributeSet(attribute.NewSet(attribute.String("outcome", string(out))))
}

// Received counts n alerts.
func (o *OTelMetrics) Received(ctx context.Context, n int) { o.received.Add(ctx, int64(n)) }

// Rejected counts one rejected delivery.
func (o *OTelMetrics) Rejected(ctx context.Context, reason string) {
	o.rejected.Add(ctx, 1, metric.WithAttributes(attribute.String("reason", reason)))
}

// Filed counts one filed alert by outcome.
func (o *OTelMetrics) Filed(ctx context.Context, out incidents.Outcome) {
	attr, ok := o.byOutcome[out]
	if !ok {
		attr = outcomeAttr(out)
	}
	o.filed.Add(ctx, 1, attr)
	switch out {
	case incidents.Opened, incidents.Queued:
		o.opened.Add(ctx, 1)
	case incidents.Attached, incidents.Duplicate:
		o.deduplicated.Add(ctx, 1)
	}
}
