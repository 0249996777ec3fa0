package contracts

import "time"

// CallsSinceRelease are a service's calls to one of its
// AuthRefusedDependencies (a peer that refuses its credential since the
// onset: HTTP 401, 403, 407, gRPC UNAUTHENTICATED, PERMISSION_DENIED) in the
// minutes from the running version's first served minute
// (ReleaseErrors.FirstSeen) up to the peer's failure start, the first minute
// from there on with a failed call to it. Every minute listed had no failed
// call. The gate keeps the minutes that begin at or after the ledger's start
// of the running version and in which no other version served: calls the
// peer accepted there carried the credential the running version's
// configuration presents.
type CallsSinceRelease struct {
	Peer         string    `json:"peer"`
	FailureStart time.Time `json:"failure_start"`
	// Minutes are the minutes between, in time order, each without a failed
	// call to the peer.
	Minutes []PeerCallMinute `json:"minutes,omitempty"`
}

// PeerCallMinute is one minute of a service's calls to a peer (kept spans),
// and the entry spans that minute of versions other than the running one (a
// rolling update's old pods, whose calls the peer series does not tell
// apart).
type PeerCallMinute struct {
	At            time.Time `json:"at"`
	Calls         float64   `json:"calls"`
	OtherVersions float64   `json:"other_versions,omitempty"`
}

// SentChange is one size a service asks of a peer that the running
// version's calls to it carry larger than the earlier versions' calls did
// (Facts.SentChanges): the attribute, the calls of each side read and
// their medians, and the Mann-Whitney statistic (z, one-sided, larger
// after) of the difference. Before are the earlier versions' calls before
// the running version's first one; After the running version's calls from
// its first up to the onset.
type SentChange struct {
	Peer         string  `json:"peer"`
	Attribute    string  `json:"attribute"`
	BeforeCalls  int     `json:"before_calls"`
	BeforeMedian float64 `json:"before_median"`
	AfterCalls   int     `json:"after_calls"`
	AfterMedian  float64 `json:"after_median"`
	Z            float64 `json:"z"`
}
