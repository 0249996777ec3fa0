package rules

import (
	"math"
	"slices"
	"strings"

	"agentk/contracts"
	"agentk/platform/stats"
	"agentk/services/investigator/internal/loop"
)

// What a failing callee says about its caller's release (issue 35): a peer
// that fails is the incident only when it failed by itself. Three facts the
// sandbox already measures tell a callee failing under its caller's change
// from one failing on its own.
const (
	// FeatOwnLoad: the service called a failing peer more than retrying its
	// failed calls explains (facts.retried_faults: the calls per inbound
	// request over the baseline's against 1/(1-p), p the share of the
	// attempts that failed). A retry policy, changed or not, multiplies
	// the calls only by the failures it retries; a rise beyond that is
	// calls the service itself began to make (a cache keyed by request id,
	// a loop), and the peer's failures are their effect.
	// ho3-cache-key-quote-api-ratecard-effect (0.3 -> 3 calls a quote,
	// ratecard answering 503) read dependency_outage.
	FeatOwnLoad Feature = "the service called the failing peer more often than retrying its failed calls explains (facts.retried_faults)"
	// FeatRetriedFault: the calls to a peer that fails with its own failure
	// status (HTTP 5xx or 429, gRPC UNAVAILABLE) rose no more than
	// retrying its failed calls explains (facts.retried_faults): the peer
	// failed and the retries followed its failures, so the resends say
	// nothing about the release. The gate reads the same fact the same way
	// (policy.retriedFaults). ho3-trap-carrier-503-booking-gateway (an
	// outside API's 503s at p = 0.77, resilience4j's unchanged three
	// attempts, calls 1.00 -> 2.31 a booking) read retry_storm.
	FeatRetriedFault Feature = "the calls to a peer failing with its own status rose no more than retrying its failures explains (facts.retried_faults)"
	// FeatVersionOnly: since the onset the errors are a status only the
	// version released during the recording shows, while another version
	// served beside it without it, on enough requests that it would have
	// shown it had it failed at the same rate (facts.release:
	// other_requests, other_new_errors). A dependency that fails fails the
	// calls of every version; a fault only the new version meets is the
	// new version's, whatever callee answers it (a callee refusing the
	// requests the new version sends). The service must not have failed
	// before the version served (facts.release.history_errors under
	// LatentErrors): an outage that began under the old version and goes on
	// under a hotfix with a new error text is the outage's
	// (ho2-trap-hotfix-after-nutrition-outage-recipe-search).
	// ho2-bad-bundle-quantities-storefront-pricing and
	// sp-gateway-voids-failed-holds read dependency_outage.
	FeatVersionOnly Feature = "only the version released during the recording fails since the onset; another version served beside it without that error (facts.release)"
	// FeatConfigSignature: the new error of the version released during
	// the recording (facts.release.new_signature) names a setting in the
	// config signal's words ("no route configured", "missing setting").
	// With FeatLatentRelease it is a setting that version carried, as the
	// config signal after a marker is (sp-fx-config-cross-pairs-1in64 read
	// bad_release: its marker fell after the overview's onset).
	FeatConfigSignature Feature = "the released version's new error names a setting (facts.release.new_signature)"
	// FeatOtherVersionsFail: while the version released before the onset
	// serves, the other versions, still serving beside it, fail since the
	// onset beyond the history's error rate at half the running version's
	// rate or more, every status counted (facts.release.other_versions,
	// read by stats.OtherVersionsFail): the version a rollback returns to
	// fails as much, so the failure is not the release's. The gate reads
	// the same fact with the same function (policy.otherVersionReasons)
	// and denies on it. Not when
	// messages were delivered again (facts.release.redelivered): a message
	// the released version failed comes back to the others and fails them
	// too, its failure carried, not their own (ho4-amqp-crash-progression-
	// worker: 6226 redeliveries, 23 of the old version's 35 messages).
	FeatOtherVersionsFail Feature = "the other versions serving beside the released one fail as much since the onset (facts.release.other_versions)"
)

// otherVersionsFail returns the ids of the overviews of service whose
// facts.release shows FeatOtherVersionsFail.
func otherVersionsFail(service string, evidence []loop.Evidence) []string {
	var ids []string
	for _, e := range evidence {
		r := e.Facts.Release
		if e.Tool != contracts.ToolServiceOverview || e.Service != "" && e.Service != service || r == nil || r.Redelivered > 0 {
			continue
		}
		if _, fail, _ := stats.OtherVersionsFail(r); fail {
			ids = appendOnce(ids, e.ID)
		}
	}
	return ids
}

// VersionOnlyChance is the highest chance that the other versions' requests
// since the onset showed none of the new version's error had they failed at
// its rate, for FeatVersionOnly.
const VersionOnlyChance = 0.01

// retriedFaults returns the ids of the overviews of service with a retried
// fault whose calls rose beyond what retrying explains (own, FeatOwnLoad)
// and of those with one whose calls it explains (retried, FeatRetriedFault),
// as the gate reads them (contracts.RetriedFault.RoseBeyondRetries).
func retriedFaults(service string, evidence []loop.Evidence) (own, retried []string) {
	for _, e := range evidence {
		if e.Tool != contracts.ToolServiceOverview || e.Service != "" && e.Service != service {
			continue
		}
		for _, r := range e.Facts.RetriedFaults {
			if r.RoseBeyondRetries() {
				own = appendOnce(own, e.ID)
			} else {
				retried = appendOnce(retried, e.ID)
			}
		}
	}
	return own, retried
}

// versionOnly returns the ids of the overviews of service whose
// facts.release shows FeatVersionOnly: a version that replaced another
// during the recording, under LatentErrors errors before it served, at
// least LatentErrors of whose errors since the
// onset carry its new status, most of them, none of which the other
// versions show over requests enough (VersionOnlyChance).
func versionOnly(service string, evidence []loop.Evidence) []string {
	var ids []string
	for _, e := range evidence {
		r := e.Facts.Release
		if e.Tool != contracts.ToolServiceOverview || e.Service != "" && e.Service != service || r == nil {
			continue
		}
		if r.HistoryMinutes == 0 || r.HistoryErrors >= LatentErrors || r.NewErrors < LatentErrors || 2*r.NewErrors <= r.Errors || r.OtherNewErrors > 0 || r.Requests == 0 || r.OtherRequests == 0 {
			continue
		}
		rate := float64(r.NewErrors) / float64(r.Requests)
		if math.Pow(1-rate, float64(r.OtherRequests)) <= VersionOnlyChance {
			ids = appendOnce(ids, e.ID)
		}
	}
	return ids
}

// configSignature returns the ids of the overviews of service whose
// facts.release names the new version's error in the config signal's
// words (Patterns[SigConfig]: a setting missing or refused).
func configSignature(service string, evidence []loop.Evidence) []string {
	var ids []string
	for _, e := range evidence {
		r := e.Facts.Release
		if e.Tool != contracts.ToolServiceOverview || e.Service != "" && e.Service != service || r == nil {
			continue
		}
		sig := strings.ToLower(r.NewSignature)
		if slices.ContainsFunc(Patterns[SigConfig], func(p string) bool { return strings.Contains(sig, p) }) {
			ids = appendOnce(ids, e.ID)
		}
	}
	return ids
}
