package facts

import (
	"time"

	"agentk/contracts"
	"agentk/platform/mutant"
)

// A queue consumer's inbound traffic (its root or entry spans a minute) is
// its deliveries, and a delivery is not an arrival: a message the consumer
// failed is delivered again (RabbitMQ's redelivery, a Kafka offset not
// committed, an SQS visibility timeout), and a tail sampler that keeps every
// failing trace keeps every failed delivery while it keeps one in N of the
// others. Either multiplies the deliveries read since a release broke the
// consumer exactly as a surge of messages would
// (ho4-amqp-crash-progression-worker: 25x the deliveries, the same publishes).
// What arrives is what the producers publish: their spans to the consumer's
// destinations, in traces of their own whose sampling the consumer's failure
// does not touch (a consumer span links to its producer's, it is not its
// child). A surge of load is a surge of publishes
// (ho4-trap-finale-surge-replay-indexer: 5x of them).

// Arrival thresholds: the producers' spans are read as the consumer's
// arrivals only when the baseline holds at least MinBaselinePublishes of
// them and the consumer's deliveries in the baseline were within
// PublishCalibration times of them either way (the publishes are its feed,
// not a neighbour's traffic on a shared exchange, nor a batch producer's
// one span for many messages).
const (
	MinBaselinePublishes = 30
	PublishCalibration   = 2.0
)

// PublishedArrivals is the consumer's inbound traffic ratio read from its
// producers (contracts.PublishedArrivals): publishes, deliveries and inbound
// are per-minute series of the producer spans to the consumer's
// destinations (dests), of its consumer spans to them and of its inbound
// spans (InboundMinutes). The inbound spans that are no delivery (an HTTP
// route beside the queue) count as they are; the deliveries count as the
// publishes did, scaled by the baseline's deliveries per publish. nil when
// any series is empty in the baseline or the calibration fails.
func PublishedArrivals(dests []string, publishes, deliveries, inbound []Minute, on Onset) *contracts.PublishedArrivals {
	if on.At == nil {
		return nil
	}
	from, onset := on.BaselineFrom, *on.At
	pubBase, pubAfter, pubMin := split(publishes, from, onset)
	delBase, delAfter, delMin := split(deliveries, from, onset)
	inBase, inAfter, inMin := split(inbound, from, onset)
	// The shortest of the three spans since the onset: the highest rates.
	afterMin, baseMin := min(pubMin, delMin, inMin), onset.Sub(from).Minutes()
	if from.IsZero() || baseMin < 1 || afterMin < 1 || pubBase < MinBaselinePublishes || delBase <= 0 || inBase <= 0 {
		return nil
	}
	perPublish := delBase / pubBase
	if (perPublish > PublishCalibration || perPublish < 1/PublishCalibration) && !mutant.Off(mutant.SandboxPublishedArrivals) {
		return nil
	}
	// Inbound spans that are no delivery, at least none.
	otherBase, otherAfter := max(0, inBase-delBase), max(0, inAfter-delAfter)
	expected := pubAfter*perPublish + otherAfter
	ratio := round((expected / afterMin) / (inBase / baseMin))
	pubRatio := round((pubAfter / afterMin) / (pubBase / baseMin))
	return &contracts.PublishedArrivals{Destinations: dests, Ratio: ratio, PublishRatio: pubRatio,
		BaselinePublishes: int64(pubBase), BaselineDeliveries: int64(delBase), BaselineOther: int64(otherBase),
		Publishes: int64(pubAfter), Deliveries: int64(delAfter)}
}

// split sums a series over the baseline [from, onset) and from the onset
// to its last minute, and says how many minutes the latter spans.
func split(ms []Minute, from, onset time.Time) (base, after, afterMin float64) {
	var last time.Time
	for _, m := range ms {
		if m.At.After(last) {
			last = m.At
		}
		switch {
		case m.At.Before(from):
		case m.At.Before(onset):
			base += m.Requests
		default:
			after += m.Requests
		}
	}
	if !last.Before(onset) {
		afterMin = last.Sub(onset).Minutes() + 1
	}
	return base, after, afterMin
}
