package tools

import (
	"fmt"
	"strings"

	"agentk/contracts"
	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"
)

// A queue consumer's arrivals and redeliveries (the measurements are
// facts.PublishedArrivals and facts.WithoutRedeliveries): when the first
// stage's sample holds consumer spans of the service, stage two also reads,
// over the onset window, the producer spans a minute to its destinations
// (every producer, the service too: a republish is an arrival), its
// consumer spans a minute to them, and its entry spans flagged redelivered
// by version and their errors by version and status message.

const (
	qPublishes       = "per_minute_publishes"
	qDeliveries      = "per_minute_deliveries"
	qRedelivered     = "per_minute_redelivered_versions"
	qRedeliveredErrs = "per_minute_redelivered_version_errors"
)

// arrivalQueries are the four queries above; none when the sample shows no
// consumer span of the service. Each is optional: a SigNoz that never saw a
// messaging key refuses it, and the overview goes on without it.
func arrivalQueries(c Call, lim Limits, sample signoz.Response) []Query {
	dests := lagDestinations(c.Service, sample)
	if len(dests) == 0 {
		return nil
	}
	q := make([]string, 0, len(dests))
	for _, d := range dests {
		q = append(q, Quote(d))
	}
	in := "messaging.destination.name IN (" + strings.Join(q, ", ") + ")"
	svc, ow := serviceFilter(c.Service), OnsetWindow(c)
	version := signoz.FieldKey{Name: "service.version", FieldContext: "resource", FieldDataType: "string"}
	bySignature := []signoz.FieldKey{version, {Name: "status_message", FieldContext: "span", FieldDataType: "string"}}
	redelivered := facts.RedeliveredKey + " = true"
	series := func(name, filter string, by []signoz.FieldKey, limit int) Query {
		return Query{Name: name, Optional: true, Request: signoz.NewRequest(signoz.RequestTimeSeries, ow.From.UnixMilli(), ow.To.UnixMilli(), signoz.BuilderQuery{Name: "A", Signal: signoz.SignalTraces,
			StepInterval: 60, Filter: signoz.Filter{Expression: filter}, Aggregations: []signoz.Aggregation{{Expression: "count()"}}, GroupBy: by, Limit: limit})}
	}
	return []Query{
		series(qPublishes, and(in, "kind = 4", excludeFilter(lim.Exclude)), nil, 1),
		series(qDeliveries, and(svc, in, "kind = 5"), nil, 1),
		series(qRedelivered, and(svc, entrySpans, redelivered), []signoz.FieldKey{version}, 50),
		series(qRedeliveredErrs, and(svc, entrySpans, redelivered, "has_error = true"), bySignature, 100),
	}
}

// overviewArrivals reads arrivalQueries' answers from resps[at:] when the
// sample asked them: the consumer's arrivals read from its producers
// (facts.PublishedArrivals, against the inbound series of st) and the
// release comparison without the redeliveries (facts.WithoutRedeliveries);
// asked counts the queries (0 or 4).
func overviewArrivals(c Call, lim Limits, resps []signoz.Response, at int, st overviewState) (arr *contracts.PublishedArrivals, release *contracts.ReleaseErrors, asked int, err error) {
	release = st.release
	sample := firstAnswers(resps).of(qQualitySample)
	qs := arrivalQueries(c, lim, sample)
	if len(qs) == 0 || len(resps) < at+len(qs) {
		return nil, release, 0, nil
	}
	asked = len(qs)
	got := resps[at : at+len(qs)]
	if st.onset.At == nil {
		return nil, release, asked, nil
	}
	if got[0].Refused == "" && got[1].Refused == "" {
		pubs, err := perMinute(got[0], got[0])
		if err != nil {
			return nil, nil, 0, err
		}
		dels, err := perMinute(got[1], got[1])
		if err != nil {
			return nil, nil, 0, err
		}
		arr = facts.PublishedArrivals(lagDestinations(c.Service, sample), pubs, dels, st.inbound, st.onset)
	}
	if release != nil && got[2].Refused == "" && got[3].Refused == "" {
		counts, err := versionCounts(got[2])
		if err != nil {
			return nil, nil, 0, err
		}
		rows, err := errorsBySignature(got[3])
		if err != nil {
			return nil, nil, 0, err
		}
		release = facts.WithoutRedeliveries(release, counts, rows, st.onset.At.UnixMilli())
	}
	return arr, release, asked, nil
}

// overviewConsumer reads stage two's queue-consumer answers from
// resps[two:]: the lag (overviewLag), then the arrivals and the release
// comparison without the redeliveries (overviewArrivals), which replaces
// st's; asked counts the queries both asked.
func overviewConsumer(c Call, lim Limits, resps []signoz.Response, two int, st *overviewState) (*contracts.ConsumerLag, *contracts.PublishedArrivals, int, error) {
	lag, asked, err := overviewLag(c, lim, resps, two)
	if err != nil {
		return nil, nil, 0, err
	}
	arr, release, more, err := overviewArrivals(c, lim, resps, two+asked, *st)
	if err != nil {
		return nil, nil, 0, err
	}
	st.release = release
	return lag, arr, asked + more, nil
}

// trafficLines render the inbound traffic ratio and, for a queue consumer,
// its arrivals read from its producers, and the arrivals read from the
// service's logs.
func trafficLines(f contracts.Facts) []string {
	var lines []string
	if f.TrafficRatio != nil {
		lines = append(lines, "inbound traffic since the onset vs baseline: "+fmtF(*f.TrafficRatio)+"x")
	}
	for _, l := range []string{arrivalsLine(f.PublishedArrivals), loggedLine(f.LoggedArrivals), consistentLine(f.ConsistentArrivals)} {
		if l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// arrivalsLine renders the consumer's arrivals for the model.
func arrivalsLine(a *contracts.PublishedArrivals) string {
	if a == nil {
		return ""
	}
	return fmt.Sprintf("messages published to %s since the onset vs baseline: %sx (%d publishes, %d deliveries since the onset; %d and %d in the baseline): inbound traffic had the deliveries followed the publishes %sx",
		strings.Join(a.Destinations, ", "), fmtF(a.PublishRatio), a.Publishes, a.Deliveries, a.BaselinePublishes, a.BaselineDeliveries, fmtF(a.Ratio))
}
