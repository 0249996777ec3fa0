package facts

import (
	"math"
	"time"

	"agentk/contracts"
	"agentk/platform/mutant"
)

// A tail sampler keeps every failing (or slow) trace and 1 in N of the
// others, so a regression that fails a share e of the requests multiplies
// the kept entry spans by about 1 + e(N - 1): read as arrivals, they say
// load (the gate's surge ratio) when nothing arrived beyond the usual
// (e2e/incidents-heldout13, five tail-sampled CI worlds). Counting only the
// clean kept traces is no way out: it is a lower bound on arrivals, and a
// surge beyond capacity (the successes held at what the service can serve,
// the excess failing) reads the same by every count the traces hold.
//
// An arrivals source the sampler does not touch is the service's own log
// records, when it writes one (or more) for every request with the trace id
// and the logs are not sampled with the traces. Nothing declares either, so
// both are shown against the traces before the logs are believed:
//
//   - coverage: of a sample of kept entry traces in the baseline, and
//     another since the onset, nearly all (MinLogCoverage) have a log record
//     of the service. Logs written only for errors fail the baseline's (the
//     kept clean traces have none: heldout13's logs, every one an error of a
//     kept trace); logs of one instance of several fail both; a service that
//     fails before it logs (a request turned away at the door, a crash)
//     fails the onset's, whose kept traces are mostly its failures.
//   - excess: the baseline's logs hold at least MinLogExcess times the
//     trace ids of its kept entry spans. Logs sampled with the traces (the
//     generator's worlds: a dropped trace drops its logs) hold as many.
//   - the kept traces as a second count: in every minute since the onset
//     the logs hold nearly as many trace ids as the kept entry spans
//     (loggedEveryMinute), so logs that thin out after the samples cannot
//     read as arrivals that fell.
//
// A surge beyond capacity under such logs is a surge of logged trace ids
// and is still denied; a surge whose excess the service turns away without
// a log fails the onset's coverage and the kept count stands. Requests shed
// before they reach the service (a proxy's 503s) are in neither its spans
// nor its logs: the logs then read what head-sampled spans would.

// Logged-arrivals thresholds: each coverage sample holds at least
// MinCoverageSample kept entry traces, MinLogCoverage of them with a log
// record; the baseline holds at least MinBaselineLogged logged trace ids,
// MinLogExcess times its kept entry spans or more.
const (
	MinCoverageSample = 20
	MinLogCoverage    = 0.95
	MinBaselineLogged = 30
	MinLogExcess      = 1.5
)

// LoggedArrivalsInput is what LoggedArrivals reads: Logged is the
// service's distinct logged trace ids a minute and Inbound its kept entry
// spans a minute (InboundMinutes); the coverage samples are the trace ids
// of kept entry spans in the baseline and since the onset
// (BaselineSample, Sample) and the trace ids the service's log records
// carry around each (BaselineLogs, Logs). Cut says a sample's answer came
// back at its limit (the logs around it may be missing).
type LoggedArrivalsInput struct {
	Logged, Inbound        []Minute
	BaselineSample, Sample []string
	BaselineLogs, Logs     map[string]bool
	Cut                    bool
	Onset                  Onset
}

// LoggedArrivals is the service's inbound traffic ratio read from its logs
// (contracts.LoggedArrivals); nil unless both samples show the logs cover
// the kept traces and the baseline shows them unsampled (the thresholds
// above), or when any series is empty in the baseline.
func LoggedArrivals(in LoggedArrivalsInput) *contracts.LoggedArrivals {
	on := in.Onset
	if on.At == nil || in.Cut {
		return nil
	}
	from, onset := on.BaselineFrom, *on.At
	logBase, logAfter, _ := split(in.Logged, from, onset)
	keptBase, keptAfter, _ := split(in.Inbound, from, onset)
	ratio, kept := TrafficRatio(in.Logged, from, onset), TrafficRatio(in.Inbound, from, onset)
	if ratio == nil || kept == nil || logBase < MinBaselineLogged || keptBase <= 0 {
		return nil
	}
	baseCovered, covered := coveredBy(in.BaselineSample, in.BaselineLogs), coveredBy(in.Sample, in.Logs)
	out := &contracts.LoggedArrivals{Ratio: *ratio, KeptRatio: *kept,
		BaselineLogged: int64(logBase), BaselineKept: int64(keptBase), Logged: int64(logAfter), Kept: int64(keptAfter),
		BaselineSampled: int64(len(in.BaselineSample)), BaselineCovered: int64(baseCovered), Sampled: int64(len(in.Sample)), Covered: int64(covered)}
	if mutant.Off(mutant.SandboxLoggedArrivals) {
		return out
	}
	if !coverageHolds(baseCovered, len(in.BaselineSample)) || !coverageHolds(covered, len(in.Sample)) {
		return nil
	}
	// The spans are sampled, the logs are not; and since the onset the
	// logs still hold the kept traces, minute by minute.
	if logBase < MinLogExcess*keptBase || logAfter < MinLogCoverage*keptAfter || !loggedEveryMinute(in.Logged, in.Inbound, onset) {
		return nil
	}
	return out
}

// loggedEveryMinute says whether, in every minute from the onset on, the
// logged trace ids are at least MinLogCoverage of the kept entry spans,
// less twice the kept count's square root (a request's record may fall in
// the minute after its span began). Logs that stop or thin out after the
// coverage sample since the onset (a logger that drops lines under a surge,
// a disk that fills) would read as arrivals that fell.
func loggedEveryMinute(logged, kept []Minute, onset time.Time) bool {
	byMin := map[int64]float64{}
	for _, m := range logged {
		byMin[m.At.Unix()] += m.Requests
	}
	for _, m := range kept {
		if m.At.Before(onset) || m.Requests <= 0 {
			continue
		}
		if byMin[m.At.Unix()] < MinLogCoverage*m.Requests-2*math.Sqrt(m.Requests) {
			return false
		}
	}
	return true
}

// coveredBy counts the trace ids of sample that logs holds.
func coveredBy(sample []string, logs map[string]bool) int {
	n := 0
	for _, id := range sample {
		if logs[id] {
			n++
		}
	}
	return n
}

// coverageHolds says whether covered of sampled kept traces is a large
// enough sample with a large enough share covered.
func coverageHolds(covered, sampled int) bool {
	return sampled >= MinCoverageSample && float64(covered) >= math.Ceil(MinLogCoverage*float64(sampled)-1e-9)
}
