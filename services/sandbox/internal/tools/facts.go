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

// MaxOperationSeries bounds the series of each grouping of the operations'
// queries (facts.MaxOperationSeries).
const MaxOperationSeries = facts.MaxOperationSeries

// opDeparture is one operation's significant departure (facts.OpDeparture).
type opDeparture = facts.OpDeparture

// opVersions is what the versions' answers say (facts.OpVersions).
type opVersions = facts.OpVersions

// readOpVersions reads opVersionQueries' answers (facts.ReadOpVersions).
func readOpVersions(all, errs signoz.Response) (*opVersions, error) {
	v, err := facts.ReadOpVersions(all, errs)
	return v, badResponse(err)
}

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

// CoRegressionWindow is how close another service's onset must be to count
// as the same event (facts.CoRegressionWindow).
const CoRegressionWindow = facts.CoRegressionWindow

// alternatives derives the facts that point away from a release
// (facts.Alternatives).
func alternatives(roots, versions signoz.Response, arrivals facts.EntryArrivals, others, othersErr signoz.Response, alertAt time.Time, on Onset) (facts.AlternativeFacts, error) {
	a, err := facts.Alternatives(roots, versions, arrivals, others, othersErr, alertAt, on)
	return a, badResponse(err)
}

// inboundMinutes are the inbound requests per minute (facts.InboundMinutes).
func inboundMinutes(roots, versions signoz.Response, arrivals facts.EntryArrivals, from, onset time.Time) ([]Minute, error) {
	ms, err := facts.InboundMinutes(roots, versions, arrivals, from, onset)
	return ms, badResponse(err)
}
