package facts

import (
	"math"

	"agentk/contracts"
	"agentk/platform/mutant"
)

// A message a consumer failed comes back: RabbitMQ requeues it with its
// redelivered flag set, to whichever consumer is free. During a rolling
// update that is often a pod of the version the release replaces, so the
// old version's deliveries since the onset hold the running version's
// failed messages again (ho4-amqp-crash-progression-worker: 82 of the old
// version's 94 deliveries since the onset were such, the flag set on each).
// Whether the old version processes them or fails them too says nothing of
// what it does with a fresh message, which is what a rollback gives it; a
// fault outside the release (a producer's malformed messages, a database
// down) fails the old version's fresh deliveries as well, and those stay
// counted.

// RedeliveredKey is the span attribute that flags a delivery as a message
// delivered again (RabbitMQ's basic.deliver redelivered bit, as the
// instrumentations record it).
const RedeliveredKey = "messaging.rabbitmq.message.redelivered"

// WithoutRedeliveries returns a copy of r with the redelivered entry spans
// since the onset (on, Unix milliseconds) left out of every count since the
// onset: counts are the redelivered entry spans per minute by version, rows
// their error spans per minute by version and signature (VersionCounts,
// ErrorsBySignature of the redelivered spans). r itself when nothing was
// redelivered since the onset.
func WithoutRedeliveries(r *contracts.ReleaseErrors, counts map[string]map[int64]float64, rows []VersionErrors, on int64) *contracts.ReleaseErrors {
	if r == nil || mutant.Off(mutant.SandboxRedeliveries) {
		return r
	}
	var runReq, otherReq, total float64
	for v, byTs := range counts {
		for ts, c := range byTs {
			if ts < on || v == "" {
				continue
			}
			total += c
			if v == r.Version {
				runReq += c
			} else {
				otherReq += c
			}
		}
	}
	if total <= 0 {
		return r
	}
	var runErr, runNew, otherErr, otherNew float64
	for _, e := range rows {
		if e.TS < on || e.Version == "" {
			continue
		}
		isNew := r.NewSignature != "" && e.Signature == r.NewSignature
		switch {
		case e.Version == r.Version:
			runErr += e.N
			if isNew {
				runNew += e.N
			}
		default:
			otherErr += e.N
			if isNew {
				otherNew += e.N
			}
		}
	}
	out := *r
	less := func(n int64, by float64) int64 { return max(0, n-int64(math.Round(by))) }
	out.Requests, out.Errors, out.NewErrors = less(r.Requests, runReq), less(r.Errors, runErr), less(r.NewErrors, runNew)
	out.OtherRequests, out.OtherNewErrors = less(r.OtherRequests, otherReq), less(r.OtherNewErrors, otherNew)
	if r.OtherVersions != nil {
		o := *r.OtherVersions
		o.Requests, o.Errors = less(o.Requests, otherReq), less(o.Errors, otherErr)
		out.OtherVersions = &o
	}
	out.Redelivered = int64(math.Round(total))
	return &out
}
