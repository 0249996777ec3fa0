package contracts

import "time"

// CallsSinceRelease are the calls of a service to one of its
// FailingDependencies in the whole minutes from the running version's first
// served minute (ReleaseErrors.FirstSeen) up to the peer's failure onset,
// one row a minute, with the peer's error rate before the release. The
// onset is the first minute from the running version's first on in which
// more of the peer's calls failed than its usual rate allows (twice the
// baseline's rate, plus one call), or the peer's own error onset
// (FindOnset, whose sparse buckets may place it a minute early) when that
// comes first. The gate keeps the minutes that begin at or after the
// ledger's start of the running version and in which no other version
// served: calls that reached the peer at its usual error rate there were
// made with the configuration the running version runs, so that
// configuration did not break them.
type CallsSinceRelease struct {
	Peer string `json:"peer"`
	// Onset is the peer's failure onset; every minute ends at or before it.
	Onset time.Time `json:"onset"`
	// BaselineCalls and BaselineErrors are the calls to the peer and the
	// failed ones from the baseline's start to the running version's
	// first served minute.
	BaselineCalls  float64 `json:"baseline_calls"`
	BaselineErrors float64 `json:"baseline_errors"`
	// Minutes are the whole minutes between, in order.
	Minutes []PeerCallMinute `json:"minutes,omitempty"`
}

// PeerCallMinute is one minute of a service's calls to a peer (kept spans),
// and the entry spans that minute of versions other than the running one (a
// rolling update's old pods, whose calls the peer series does not tell
// apart).
type PeerCallMinute struct {
	At            time.Time `json:"at"`
	Calls         float64   `json:"calls"`
	Errors        float64   `json:"errors"`
	OtherVersions float64   `json:"other_versions,omitempty"`
}
