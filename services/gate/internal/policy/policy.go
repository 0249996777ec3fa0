// Package policy is the gate's core: Evaluate, a pure function from the
// verified inputs of one proposed rollback to a decision. It never reads the
// clock, the environment or the network, never logs, and never calls a model;
// every reason it has is in the decision it returns.
package policy

import (
	"time"

	"agentk/contracts"
)

// ActionRollback is the one action the gate knows how to judge. A restart is
// not one: it brings a container back on its current image and changes nothing.
const ActionRollback = "rollback"

// KnownActions lists every action an allowlist may name.
var KnownActions = []string{ActionRollback}

// Config holds the gate's thresholds and scope. internal/config builds and
// validates it once at start.
type Config struct {
	// BurnRateThreshold is the SLO burn rate at or above which slo_breach passes.
	BurnRateThreshold float64
	// ConfidenceThreshold is the best reviewed claim's confidence at or above
	// which confidence passes.
	ConfidenceThreshold float64
	// Cooldown is how long after an action on a service no other may be allowed.
	Cooldown time.Duration
	// MarkerWindow is how long before the onset a deployment marker still counts.
	MarkerWindow time.Duration
	// MarkerTolerance is how far a deployment marker's timestamp may lie from
	// the time the release ledger saw its version start (Docker's start of the
	// container on the new image) and still count: a span is a claim, the
	// ledger is the witness (DESIGN.md rule 15).
	MarkerTolerance time.Duration
	// TrafficSurgeRatio is the inbound traffic ratio (since the onset over the
	// baseline) at or above which the regression is load, not a release.
	TrafficSurgeRatio float64
	// Actions is the allowlist of actions.
	Actions []string
	// SandboxServices are the services the gate may allow an action on.
	SandboxServices []string
	// Catalogue says which failure classes are deployment-class.
	Catalogue []contracts.FailureClass
	// DecisionTTL is how long a decision stays valid for an approval.
	DecisionTTL time.Duration
	// OriginShareThreshold is the share (0..1] of the alerted service's new
	// failures that must begin in another service for a derived decision
	// about that service to pass slo_breach (EvaluateOrigin).
	OriginShareThreshold float64
	// ShadowAll and ShadowServices put decisions in shadow mode (every
	// service, or these): the pipeline runs and signs, the deployer never acts.
	ShadowAll      bool
	ShadowServices []string
}

// DefaultMarkerTolerance is MarkerTolerance's default, 5 minutes. A marker a
// service writes at process start follows Docker's start of its container by
// milliseconds to seconds; one a deploy pipeline writes may precede it by the
// image pull or follow it by the health checks (compose's default: three
// 30-second probes), and the pipeline's host clock may be off the Docker
// host's by seconds. Five minutes covers those with room, and stays far
// under the marker window (30m) and far under the days between a release's
// start and a forged, leaked or re-emitted marker of it: the marker window
// measured on Docker's clock grows by at most this much.
const DefaultMarkerTolerance = 5 * time.Minute

// DefaultConfig returns DESIGN.md's thresholds with no sandbox services: a
// gate nobody configured acts on nothing.
func DefaultConfig() Config {
	return Config{
		BurnRateThreshold:   1.0,
		ConfidenceThreshold: 0.70,
		Cooldown:            600 * time.Second,
		MarkerWindow:        30 * time.Minute,
		MarkerTolerance:     DefaultMarkerTolerance,
		TrafficSurgeRatio:   2.5,
		Actions:             []string{ActionRollback},
		Catalogue:           contracts.DefaultCatalogue(),
		DecisionTTL:         15 * time.Minute,
		// OriginShareThreshold: see DefaultOriginShare.
		OriginShareThreshold: DefaultOriginShare,
	}
}

// CooldownState is the deployer's last action on the service, as the adapter
// read it from the durable action ledger (KV agentk_cooldown).
type CooldownState struct {
	// Err is non-empty when the store could not be read or the value failed
	// verification; the check then fails closed.
	Err string
	// Found is false when the store holds no action for the service.
	Found bool
	Last  contracts.CooldownV1
}

// LedgerState is the deployer's release ledger of the service, as the adapter
// read it from KV agentk_releases.
type LedgerState struct {
	// Err is non-empty when the store could not be read or the value failed
	// verification.
	Err    string
	Found  bool
	Ledger contracts.ReleaseLedgerV1
}

// Input is everything one decision depends on. The adapter verifies every
// envelope before it builds an Input; Evaluate trusts only what verified and
// re-checks that each piece belongs to the review.
type Input struct {
	// Now is the decision time (the service's clock, stamped once).
	Now time.Time
	// Action is the proposed action.
	Action string
	// Review is the reviewer-signed review.
	Review contracts.ReviewV1
	// Alert is the ingester-signed alert the review carried; nil when its
	// envelope failed verification (AlertErr says why).
	Alert    *contracts.AlertV1
	AlertErr string
	// Evidence are the sandbox-signed evidence values that verified. Evaluate
	// ignores any whose InvestigationID is not the review's.
	Evidence []contracts.EvidenceV1
	// EvidenceRejected counts evidence envelopes that failed verification.
	EvidenceRejected int
	Cooldown         CooldownState
	Ledger           LedgerState
	// Freezes are the freezes read for the service and globally.
	Freezes FreezeState
	// Origin is the state read for the service where the alerted service's
	// failures begin (OriginOf); zero when the evidence names none.
	Origin OriginState
	Config Config
}

// DecisionID is the decision's id for a review: deterministic, so a
// redelivered review yields the same id and JetStream drops the duplicate.
func DecisionID(reviewID string) string { return "decision." + reviewID }
