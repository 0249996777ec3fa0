package rules

import (
	"agentk/contracts"
	"agentk/services/investigator/internal/loop"
)

// A queue consumer's lag (the sandbox's consumer_lag fact: its consumer
// spans' start less their producer spans') is a symptom: messages arrive
// faster than it processes them. The class is what moved (e2e/incidents-mesh
// README): the arrivals (traffic_surge, "request rate far above normal": a
// consumer's requests are the messages it is given) or the consumer's own
// time a message with no more arrivals (its resources: resource_saturation).
const (
	// FeatLagArrivals: the consumer's lag rose with the messages arriving
	// LagArrivalRise times or more, and more than its time a message; or
	// with the arrivals up LagArrivalsQuiet times or more while its time a
	// message stayed under LagProcessRise: its capacity did not move, so
	// only the arrivals can have outrun it.
	FeatLagArrivals Feature = "a queue consumer's lag rose with the messages arriving (facts.consumer_lag: producer spans to its destinations a minute)"
	// FeatLagProcessing: the consumer's lag rose with its time a message
	// (LagProcessRise times or more) while the arrivals stayed under
	// LagArrivalsQuiet.
	FeatLagProcessing Feature = "a queue consumer's lag rose with its own time a message, the arrivals did not (facts.consumer_lag: its consumer spans' durations)"
)

// Lag thresholds.
const (
	// LagArrivalRise is the arrivals' rise that reads as a surge: SurgeRatio,
	// as the inbound traffic of a service that is called.
	LagArrivalRise = SurgeRatio
	// LagProcessRise is the rise of the time a message that reads as the
	// consumer's own slowness: RuntimeRise.
	LagProcessRise = RuntimeRise
	// LagArrivalsQuiet is the arrivals' rise under which they did not move.
	LagArrivalsQuiet = 1.5
)

// consumerLag returns the ids of the service's overviews whose consumer lag
// rose with the arrivals, and of those whose lag rose with the time a
// message alone. A lag with no onset, or a ratio not measured, reads
// neither.
func consumerLag(service string, evidence []loop.Evidence) (arrivals, processing []string) {
	for _, e := range evidence {
		l := e.Facts.ConsumerLag
		if e.Tool != contracts.ToolServiceOverview || e.Service != "" && e.Service != service || l == nil || l.Onset == nil || l.ArrivalRatio == nil {
			continue
		}
		a := *l.ArrivalRatio
		p := 0.0
		if l.ProcessRatio != nil {
			p = *l.ProcessRatio
		}
		switch {
		case a >= LagArrivalRise && a >= p, a >= LagArrivalsQuiet && p < LagProcessRise:
			arrivals = appendOnce(arrivals, e.ID)
		case p >= LagProcessRise && a < LagArrivalsQuiet:
			processing = appendOnce(processing, e.ID)
		}
	}
	return arrivals, processing
}
