package tools

import (
	"time"

	"agentk/contracts"
	"agentk/services/sandbox/internal/facts"
	"agentk/services/sandbox/internal/signoz"
)

// The facts moved to package facts; these aliases keep the names tools' own
// files call them by.

// Minute is one minute of a service's traffic (facts.Minute).
type Minute = facts.Minute

// Margins say how far a series must leave its baseline to count as the
// onset (facts.Margins).
type Margins = facts.Margins

// DefaultMargins are the README's margins (facts.DefaultMargins).
var DefaultMargins = facts.DefaultMargins

// Onset is the result of FindOnset (facts.Onset).
type Onset = facts.Onset

// FindOnset finds where the series left its baseline by the alert
// (facts.FindOnset).
func FindOnset(minutes []Minute, alertAt time.Time, m Margins) Onset {
	return facts.FindOnset(minutes, alertAt, m)
}

// MaxOperationSeries bounds the series of each grouping of the operations'
// queries (facts.MaxOperationSeries).
const MaxOperationSeries = facts.MaxOperationSeries

// opDeparture is one operation's significant departure (facts.OpDeparture).
type opDeparture = facts.OpDeparture

// operationDeparturesBy is operationDepartures with the versions' answers
// (facts.OperationDeparturesBy).
func operationDeparturesBy(ops map[string][]Minute, filters map[string]string, vs *opVersions, alertAt time.Time, m Margins) []opDeparture {
	return facts.OperationDeparturesBy(ops, filters, vs, alertAt, m)
}

// opVersions is what the versions' answers say (facts.OpVersions).
type opVersions = facts.OpVersions

// readOpVersions reads opVersionQueries' answers (facts.ReadOpVersions).
func readOpVersions(all, errs signoz.Response) (*opVersions, error) {
	v, err := facts.ReadOpVersions(all, errs)
	return v, badResponse(err)
}

// SignatureOnset is on, or later where errors of new status signatures
// begin (facts.SignatureOnset).
func SignatureOnset(on Onset, minutes []Minute, errs []versionErrors, alertAt time.Time, m Margins) Onset {
	return facts.SignatureOnset(on, minutes, errs, alertAt, m)
}

// earliestOnset is the service's onset or an earlier operation's
// (facts.EarliestOnset).
func earliestOnset(svc Onset, deps []opDeparture) Onset { return facts.EarliestOnset(svc, deps) }

// departureFacts are the facts of the significant departures
// (facts.DepartureFacts).
func departureFacts(deps []opDeparture) []contracts.OperationDeparture {
	return facts.DepartureFacts(deps)
}

// medianP95 is the median p95 of the minutes that have one (facts.MedianP95).
func medianP95(xs []Minute) float64 { return facts.MedianP95(xs) }

// qualityDeparture is one attribute's significant shift
// (facts.QualityDeparture).
type qualityDeparture = facts.QualityDeparture

// qualityDepartures judges each key's series, resps in qualityQueries
// order (facts.QualityDepartures).
func qualityDepartures(keys []qualityKey, resps []signoz.Response, alertAt time.Time, m Margins) ([]qualityDeparture, error) {
	fk := make([]facts.QualityKey, len(keys))
	for i, k := range keys {
		fk[i] = facts.QualityKey{Name: k.name, Numeric: k.numeric}
	}
	deps, err := facts.QualityDepartures(fk, resps, alertAt, m)
	return deps, badResponse(err)
}

// earliestWithQuality is on or an earlier quality shift's onset
// (facts.EarliestWithQuality).
func earliestWithQuality(on Onset, deps []qualityDeparture) Onset {
	return facts.EarliestWithQuality(on, deps)
}

// qualityFacts are the facts of the shifts (facts.QualityFacts).
func qualityFacts(deps []qualityDeparture) []contracts.QualityShift { return facts.QualityFacts(deps) }

// addRetryAttempts adds to each peer's calls the retries its client spans
// counted, resps by PeerKeys (facts.AddRetryAttempts).
func addRetryAttempts(byPeer map[string][]Minute, resps []signoz.Response) error {
	return badResponse(facts.AddRetryAttempts(byPeer, resps, PeerKeys))
}

// retryRise is the source whose retries per inbound request rose most
// since the onset (facts.RetryRise).
func retryRise(keys []string, attrs []signoz.Response, logs signoz.Response, roots []Minute, on Onset) (*contracts.RetryRise, error) {
	r, err := facts.RetryRise(keys, attrs, logs, roots, on)
	return r, badResponse(err)
}

// spanMark is one span of the onset's bucket (facts.SpanMark).
type spanMark = facts.SpanMark

// onsetMarks reads the bucket's spans (facts.OnsetMarks).
func onsetMarks(on Onset, rows []signoz.RawRow) []spanMark { return facts.OnsetMarks(on, rows) }

// RefineOnset moves on.At later inside its bucket where the spans show the
// service still on its baseline (facts.RefineOnset).
func RefineOnset(on Onset, marks []spanMark) Onset { return facts.RefineOnset(on, marks) }

// CoRegressionWindow is how close another service's onset must be to count
// as the same event (facts.CoRegressionWindow).
const CoRegressionWindow = facts.CoRegressionWindow

// alternativeFacts are facts.Alternatives by the names tools' files read.
type alternativeFacts struct {
	trafficRatio *float64
	coRegressed  []string
	thresholds   map[string]float64
	load         map[string]*float64
	onsets       map[string]Onset
	series       map[string][]Minute
}

// alternatives derives the facts that point away from a release
// (facts.Alternatives).
func alternatives(roots, versions, others, othersErr signoz.Response, alertAt time.Time, on Onset) (alternativeFacts, error) {
	a, err := facts.Alternatives(roots, versions, others, othersErr, alertAt, on)
	return alternativeFacts{trafficRatio: a.TrafficRatio, coRegressed: a.CoRegressed, thresholds: a.Thresholds, load: a.Load, onsets: a.Onsets, series: a.Series}, badResponse(err)
}

// inboundMinutes are the inbound requests per minute (facts.InboundMinutes).
func inboundMinutes(roots, versions signoz.Response, from, onset time.Time) ([]Minute, error) {
	ms, err := facts.InboundMinutes(roots, versions, from, onset)
	return ms, badResponse(err)
}

// trafficRatio is the requests per minute from the onset on over the
// baseline's (facts.TrafficRatio).
func trafficRatio(ms []Minute, from, onset time.Time) *float64 {
	return facts.TrafficRatio(ms, from, onset)
}
