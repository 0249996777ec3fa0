package rules

import (
	"strconv"
	"time"

	"agentk/contracts"
	"agentk/services/investigator/internal/loop"
)

// A kept span is not an arrival. A collector that samples by outcome (a tail
// sampler: every trace with an error, every trace slower than a threshold,
// 1 in N of the rest; nothing in the spans says so) keeps more traces
// exactly when a regression begins: counted as requests, a release that
// fails or slows its requests reads as a surge of traffic
// (e2e/incidents-heldout4's finding 1; worldgen's tail-sampled worlds). The
// ordinary requests, which fail nothing and are not slow, are sampled alike
// before and after the onset whatever the sampler is, so their count
// follows the arrivals: a surge multiplies them, a regression does not.
//
// The rules count them in two aggregates of the entry spans (server and
// consumer spans) that failed nothing and took under ordinaryCut: one from
// the onset to the alert's start (the recording holds every minute of it;
// the incident window runs on past now, so its end is no measure), one
// over as long a window before the onset, at least OrdinaryBaseline; the
// ordinary ratio is the first's count a minute over the second's. It only
// keeps traffic_surge from reading a rise that the failing and slow
// requests carry; it is no fact of the sandbox's, and the gate's load
// check (which counts kept spans, an upper bound on arrivals when the
// sampler is unknown) is untouched. A recording with less history before
// the onset than the window counts fewer before: the ratio reads higher,
// towards the surge that the kept count alone read.

// OrdinarySurge is the ordinary ratio under which a traffic rise is carried
// by the failing and slow requests, not by arrivals: a surge of SurgeRatio
// that slows the service evenly keeps most of its requests ordinary (its
// ratio well over this), a regression keeps its ordinary requests at most
// as many as before (a ratio of 1 or less, noise aside).
const OrdinarySurge = 1.5

// entryFilter selects the entry spans in the ordinary-traffic aggregates.
const entryFilter = "kind_string IN ('Server', 'Consumer')"

// ordinaryCut is the duration (ns) at or over which an entry span is slow:
// SlowRatio times the slowest entry span's p95 before the onset (qBefore);
// 0 when none was measured. A surge's requests, a little slower each under
// the load, stay mostly under it; a regression's slowed requests, which a
// sampler by latency keeps, mostly do not (a prompt regression's 1.8–2.8
// times slower model call may not: s45451-w006 still reads traffic_surge).
func (sh Shape) ordinaryCut() int64 {
	slowest := 0.0
	for _, st := range sh.Latency {
		if (st.kind == "Server" || st.kind == "Consumer") && st.haveBefore {
			slowest = max(slowest, st.before)
		}
	}
	return int64(slowest * SlowRatio * float64(time.Millisecond))
}

// OrdinaryBaseline is the shortest window before the onset the ordinary
// requests are counted over: the sandbox's shortest baseline
// (tools.DefaultMargins' 10 minutes), so that an onset it placed has the
// history.
const OrdinaryBaseline = 10 * time.Minute

// OrdinaryAfter is the shortest window from the onset to the alert's start
// the ordinary requests are counted over; an onset closer to the alert
// leaves them unmeasured.
const OrdinaryAfter = 2 * time.Minute

// ordinaryQueries are two more queries of followUps' third turn: the
// ordinary entry spans from the onset to the alert's start and over as long
// a window before the onset, at least OrdinaryBaseline; none when the
// first turn measured no entry span's latency before the onset, or the
// onset lies less than OrdinaryAfter before the alert.
func ordinaryQueries(s loop.State, svc string, before, after time.Time) ([]string, []contracts.ToolArgs) {
	cut := readShape(s.Evidence).ordinaryCut()
	until := s.Alert.StartsAt
	if cut <= 0 || until.Sub(after) < OrdinaryAfter {
		return nil, nil
	}
	from := before.Add(-max(until.Sub(after), OrdinaryBaseline))
	ordinary := entryFilter + " AND has_error = false AND duration_nano < " + strconv.FormatInt(cut, 10)
	// Both windows have both ends, so queryOf tells them apart by the
	// grouping: by kind before the onset, by span name (which endpoints
	// kept ordinary requests) since.
	return []string{qOrdinaryBefore, qOrdinaryAfter}, []contracts.ToolArgs{
		{Service: svc, Aggregation: "count", GroupBy: []string{"kind_string"}, Filter: ordinary, From: &from, To: &before, Limit: 5},
		{Service: svc, Aggregation: "count", GroupBy: []string{"name"}, Filter: ordinary, From: &after, To: &until, Limit: 20},
	}
}

// ordinaryRatio is the ordinary entry spans a minute after the onset over
// those a minute before; false when either window is empty of time or the
// before one of ordinary spans.
func (sh Shape) ordinaryRatio() (float64, bool) {
	ob, oa := sh.Ordinary[qOrdinaryBefore], sh.Ordinary[qOrdinaryAfter]
	mb, ma := sh.OrdinaryMinutes[qOrdinaryBefore], sh.OrdinaryMinutes[qOrdinaryAfter]
	if ob <= 0 || mb <= 0 || ma <= 0 {
		return 0, false
	}
	return (oa / ma) / (ob / mb), true
}

// outcomesCarryRise reports whether the ordinary requests did not rise with
// the traffic (OrdinarySurge): the kept count rose with the failing and
// slow requests, which a sampler by outcome keeps, not with the arrivals.
func (o Observations) outcomesCarryRise() bool {
	return o.HaveOrdinary && o.OrdinaryRatio < OrdinarySurge
}
