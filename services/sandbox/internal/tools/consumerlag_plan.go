package tools

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"agentk/contracts"
	"agentk/platform/mutant"
	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"
)

// The consumer lag's planning and rendering (the measurement is
// facts.MeasureConsumerLag): a queue consumer regresses where none of its
// own spans says so, its messages waiting longer between the producer's
// publish and its processing. When the first stage's sample of the
// service's spans holds consumer spans, stage two reads the producer and
// consumer spans of their destinations (the lag of a message needs both, in
// the same trace), the latest LagSpans of them over the onset window.

const qConsumerLag = "consumer_lag"

const (
	// LagSpans bounds the messaging spans read for the lag (latest first):
	// at the corpora's 20–40 messages a minute, about an hour of both ends.
	LagSpans = 3000
	// MaxLagDestinations bounds the destinations read.
	MaxLagDestinations = 10
)

// lagFields are the columns the lag reads: the hop (trace, span, parent),
// its start and duration, its role (kind, or the messaging operation type)
// and its destination.
var lagFields = []signoz.FieldKey{
	span("trace_id", "string"), span("span_id", "string"), span("parent_span_id", "string"),
	span("timestamp", "number"), span("duration_nano", "number"), span("kind_string", "string"),
	resource("service.name", signoz.SignalTraces),
	tag("messaging.destination.name", "string"), tag("messaging.operation.type", "string"),
}

// lagDestinations are the destinations of the service's consumer spans in
// the sample (sorted, at most MaxLagDestinations); none when it shows none.
// The sample's are read once (sampleDestinations, kept by sampleMemo):
// a service_overview asks at every stage and again when it builds.
func lagDestinations(service string, sample signoz.Response) []string {
	out := sampleRead(sample).dests[service]
	return slices.Clone(out[:min(len(out), MaxLagDestinations)])
}

// sampleDestinations are the destinations of the consumer spans in the
// sample's results, by service: sorted, each once.
func sampleDestinations(res []signoz.RawResult) map[string][]string {
	var rows []signoz.RawRow
	for _, r := range res {
		rows = append(rows, r.Rows...)
	}
	out := map[string][]string{}
	for _, s := range facts.MessageSpans(rows) {
		if s.Consumer && s.Destination != "" && !slices.Contains(out[s.Service], s.Destination) {
			out[s.Service] = append(out[s.Service], s.Destination)
		}
	}
	for _, d := range out {
		slices.Sort(d)
	}
	return out
}

// lagQueries is stage two's consumer-lag query: the producer and consumer
// spans (kinds 4 and 5) of the service's destinations, of every service but
// the pipeline's own; none when the sample shows no consumer span.
func lagQueries(c Call, lim Limits, sample signoz.Response) []Query {
	dests := lagDestinations(c.Service, sample)
	if len(dests) == 0 || mutant.Off(mutant.SandboxConsumerLag) {
		return nil
	}
	q := make([]string, 0, len(dests))
	for _, d := range dests {
		q = append(q, Quote(d))
	}
	ow := OnsetWindow(c)
	f := and("messaging.destination.name IN ("+strings.Join(q, ", ")+")", "kind IN (4, 5)", excludeFilter(lim.Exclude))
	return []Query{{Name: qConsumerLag, Request: signoz.NewRequest(signoz.RequestRaw, ow.From.UnixMilli(), ow.To.UnixMilli(), signoz.BuilderQuery{Name: "A", Signal: signoz.SignalTraces,
		Filter: signoz.Filter{Expression: f}, Limit: LagSpans, Order: desc("timestamp"), SelectFields: lagFields}),
		// A SigNoz that never saw a messaging.* key refuses the query:
		// the overview goes on without the lag.
		Optional: true}}
}

// overviewLag is the consumer lag of an overview's answers resps, whose
// stage two ends at two: its last answer is the lag query's when the
// sample asked it (lagQueries), and asked counts it (0 or 1): the
// follow-up stages begin after it.
func overviewLag(c Call, lim Limits, resps []signoz.Response, two int) (lag *contracts.ConsumerLag, asked int, err error) {
	sample := firstAnswers(resps).of(qQualitySample)
	if len(resps) <= two || len(lagQueries(c, lim, sample)) == 0 {
		return nil, 0, nil
	}
	lag, err = consumerLag(c, lagDestinations(c.Service, sample), resps[two])
	return lag, 1, err
}

// consumerLag measures the lag from the stage's answer (facts.MeasureConsumerLag
// with the overview's margins); nil when the service consumed no message
// whose producer span was read, or SigNoz refused the query.
func consumerLag(c Call, dests []string, resp signoz.Response) (*contracts.ConsumerLag, error) {
	if resp.Refused != "" {
		return nil, nil
	}
	rows, err := rawRows([]signoz.Response{resp}, 0)
	if err != nil {
		return nil, err
	}
	spans := facts.MessageSpans(rows)
	m := facts.MeasureConsumerLag(spans, c.Service, c.StartsAt, DefaultMargins)
	if m == nil {
		return nil, nil
	}
	out := &contracts.ConsumerLag{Destinations: dests, Onset: m.Onset.At}
	for _, x := range facts.LagMinutes(spans, c.Service) {
		out.Messages += int64(x.Requests)
	}
	if m.Onset.At == nil {
		out.OnsetUnknown = m.Onset.Reason
		return out, nil
	}
	out.BaselineMs, out.SinceMs = finite(m.BaselineLagMs), finite(m.LagMs)
	out.ArrivalRatio, out.ProcessRatio = finite(m.ArrivalRatio), finite(m.ProcessRatio)
	return out, nil
}

// finite is a rounded copy of v, nil for NaN or an infinity.
func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	r := round(v)
	return &r
}

// lagLine renders the consumer lag for the model.
func lagLine(l *contracts.ConsumerLag) string {
	if l == nil {
		return ""
	}
	head := fmt.Sprintf("consumer lag (producer span start to consumer span start, %d messages of %s)", l.Messages, strings.Join(l.Destinations, ", "))
	if l.Onset == nil {
		return head + ": no sustained rise (" + l.OnsetUnknown + ")"
	}
	ratio := func(p *float64) string {
		if p == nil {
			return "not measured"
		}
		return fmtF(*p) + "x"
	}
	return fmt.Sprintf("%s: rose at %s, p95 %s ms before, %s ms since; since then, messages arriving %s, time a message %s",
		head, l.Onset.Format(time.RFC3339), fmtF(deref(l.BaselineMs)), fmtF(deref(l.SinceMs)), ratio(l.ArrivalRatio), ratio(l.ProcessRatio))
}

func deref(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}
