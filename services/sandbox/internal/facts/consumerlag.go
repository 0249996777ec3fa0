package facts

import (
	"math"
	"slices"
	"time"

	"agentk/services/sandbox/internal/signoz"
)

// A queue consumer regresses where no span of its own says so: its messages
// wait longer between the producer's publish and its own processing
// (consumer lag), while each message is processed as fast as before and
// nothing fails (mesh-mailer-lag-campaign-flood: a campaign publishes four
// times the mail requests, the lag goes from 0.3 s to minutes). OpenTelemetry's
// messaging conventions give what measures it: a consumer span (kind
// Consumer, or messaging.operation.type process, receive or deliver) whose
// parent is the producer's span (kind Producer, or publish, send or create)
// in the same trace. The lag of a message is the consumer span's start less
// the producer span's start; what moved it is told by the arrivals (the
// producer spans to the consumer's destinations) and the time the consumer
// takes per message (its spans' durations).

// MessageSpan is one messaging span read from a raw row.
type MessageSpan struct {
	At                   time.Time
	TraceID, SpanID      string
	ParentID             string
	Service, Destination string
	DurationMs           float64
	// Consumer is set for a consumer span, unset for a producer span.
	Consumer bool
}

// MessageSpans reads the producer and consumer spans among rows; a row that
// is neither, or has no time or span id, is skipped.
func MessageSpans(rows []signoz.RawRow) []MessageSpan {
	var out []MessageSpan
	for _, r := range rows {
		d := r.Data
		kind := AttrString(d, "kind_string")
		if kind == "" {
			kind = AttrString(d, "kind")
		}
		role := messagingRole(kind, AttrString(d, "messaging.operation.type"))
		at := RowTime(r)
		if role == "" || at.IsZero() || AttrString(d, "span_id") == "" {
			continue
		}
		s := MessageSpan{At: at, TraceID: AttrString(d, "trace_id"), SpanID: AttrString(d, "span_id"), ParentID: AttrString(d, "parent_span_id"),
			Service: ResourceValue(d, "service.name"), Destination: AttrString(d, "messaging.destination.name"), Consumer: role == "consumer"}
		if v, ok := signoz.ToFloat(AttrValue(d, "duration_nano")); ok {
			s.DurationMs = v / 1e6
		}
		out = append(out, s)
	}
	return out
}

// messagingRole is "producer", "consumer" or "" from a span's kind and its
// messaging.operation.type (the kind first: an Internal span that names an
// operation type is no message hop).
func messagingRole(kind, op string) string {
	switch kind {
	case "Producer", "SPAN_KIND_PRODUCER", "4":
		return "producer"
	case "Consumer", "SPAN_KIND_CONSUMER", "5":
		return "consumer"
	case "":
		switch op {
		case "publish", "send", "create":
			return "producer"
		case "process", "receive", "deliver":
			return "consumer"
		}
	}
	return ""
}

// LagMinutes are service's consumer lag per minute of its consumer spans'
// start, as Minute series: Requests the messages whose producer span is
// among spans (same trace, the consumer span's parent), P95Ms the p95 of
// their lags in ms (NaN for a minute with none), Errors 0. A consumer span
// whose producer span was not read (sampled out, or a batch receive that
// links instead of parenting) says nothing and is left out. Sorted by
// minute; minutes with no consumer span are absent (FindOnset skips gaps).
func LagMinutes(spans []MessageSpan, service string) []Minute {
	producers := map[[2]string]time.Time{}
	for _, s := range spans {
		if !s.Consumer {
			producers[[2]string{s.TraceID, s.SpanID}] = s.At
		}
	}
	lags := map[time.Time][]float64{}
	for _, s := range spans {
		if !s.Consumer || s.Service != service {
			continue
		}
		pub, ok := producers[[2]string{s.TraceID, s.ParentID}]
		if !ok {
			continue
		}
		m := s.At.Truncate(time.Minute)
		lags[m] = append(lags[m], math.Max(0, float64(s.At.Sub(pub))/float64(time.Millisecond)))
	}
	out := make([]Minute, 0, len(lags))
	for m, ls := range lags {
		out = append(out, Minute{At: m, Requests: float64(len(ls)), P95Ms: quantile(ls, 0.95)})
	}
	slices.SortFunc(out, func(a, b Minute) int { return a.At.Compare(b.At) })
	return out
}

// quantile is the q quantile of v, linearly interpolated (NaN for none).
func quantile(v []float64, q float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	pos := q * float64(len(s)-1)
	lo := int(math.Floor(pos))
	if lo+1 >= len(s) {
		return s[lo]
	}
	return s[lo] + (pos-float64(lo))*(s[lo+1]-s[lo])
}

// ConsumerLag is what a consumer's lag did: its onset, and the two things
// that may have moved it, each since the onset (to the last message
// published) against the lag's baseline.
type ConsumerLag struct {
	// Onset is FindOnset over LagMinutes (its p95 is the lag's p95).
	Onset Onset
	// BaselineLagMs and LagMs are the median over minutes of the lag's p95
	// before the onset and from it on.
	BaselineLagMs, LagMs float64
	// ArrivalRatio is the producer spans a minute to the consumer's
	// destinations from the onset on against before it; ProcessRatio the
	// median duration of its consumer spans the same way (NaN when either
	// side has none).
	ArrivalRatio, ProcessRatio float64
}

// MeasureConsumerLag measures service's consumer lag from spans (the
// producer and consumer spans of the recording, MessageSpans); nil when the
// service consumed no message whose producer span was read, or its lag left
// no baseline (FindOnset's onset unknown, Onset.Reason says why).
func MeasureConsumerLag(spans []MessageSpan, service string, alertAt time.Time, m Margins) *ConsumerLag {
	minutes := LagMinutes(spans, service)
	if len(minutes) == 0 {
		return nil
	}
	out := &ConsumerLag{Onset: FindOnset(minutes, alertAt, m), ArrivalRatio: math.NaN(), ProcessRatio: math.NaN()}
	if out.Onset.At == nil {
		return out
	}
	on := *out.Onset.At
	var before, after []float64
	for _, x := range minutes {
		if x.At.Before(on) {
			before = append(before, x.P95Ms)
		} else {
			after = append(after, x.P95Ms)
		}
	}
	out.BaselineLagMs, out.LagMs = Median(before), Median(after)
	// What moved the lag is read up to the last message published, not the
	// alert: an alert may fire a minute or two into a flood (e2e/worldgen
	// places the onset 1 to 12 minutes before it), and up to the alert the
	// arrivals' rise is a partial minute or two.
	end := alertAt
	for _, s := range spans {
		if !s.Consumer && s.At.After(end) {
			end = s.At
		}
	}
	out.ArrivalRatio, out.ProcessRatio = lagCauses(spans, service, out.Onset.BaselineFrom, on, end)
	return out
}

// lagCauses are the arrival and processing ratios of MeasureConsumerLag:
// [from, on) against [on, end].
func lagCauses(spans []MessageSpan, service string, from, on, end time.Time) (arrivals, process float64) {
	dests := map[string]bool{}
	for _, s := range spans {
		if s.Consumer && s.Service == service && s.Destination != "" {
			dests[s.Destination] = true
		}
	}
	var pub [2]float64
	var dur [2][]float64
	for _, s := range spans {
		if s.At.Before(from) || s.At.After(end) {
			continue
		}
		i := 0
		if !s.At.Before(on) {
			i = 1
		}
		switch {
		case !s.Consumer && dests[s.Destination]:
			pub[i]++
		case s.Consumer && s.Service == service:
			dur[i] = append(dur[i], s.DurationMs)
		}
	}
	arrivals, process = math.NaN(), math.NaN()
	if before, after := on.Sub(from).Minutes(), end.Sub(on).Minutes(); pub[0] > 0 && before > 0 && after > 0 {
		arrivals = (pub[1] / after) / (pub[0] / before)
	}
	if b, a := Median(dur[0]), Median(dur[1]); b > 0 && !math.IsNaN(a) {
		process = a / b
	}
	return arrivals, process
}
