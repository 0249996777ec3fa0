package contracts

import (
	"regexp"
	"time"

	"agentk/contracts/wiring"
)

// SubjectFreeze is the subject a bridge-signed FreezeV1 is sealed for. Freezes
// are KV values (bucket agentk_freezes, key FreezeKey(scope)), never published
// on a stream; the bucket's history is their audit trail.
const SubjectFreeze = wiring.SubjectFreeze

// FreezeGlobal is the Scope (and KV key) of a freeze on every service. It
// starts with an underscore, which no service name can.
const FreezeGlobal = "_global"

// MaxFreeze is the longest a freeze may last. A freeze always expires: a
// forgotten one would silently turn agentk off.
const MaxFreeze = 30 * 24 * time.Hour

// serviceName matches a service name: a Docker Compose service name, ASCII
// letters, digits, '.', '_' and '-', at most 253 bytes; it is a valid NATS KV
// key as it is.
var serviceName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,252}$`)

// ValidServiceName reports whether name can name a service: the ingester
// refuses an alert whose service label is not one (a non-ASCII homoglyph of
// "shop-api" never enters the pipeline), and freezes are scoped by it.
func ValidServiceName(name string) bool { return serviceName.MatchString(name) }

// ValidFreezeScope reports whether scope is FreezeGlobal or a service name.
func ValidFreezeScope(scope string) bool { return scope == FreezeGlobal || ValidServiceName(scope) }

// FreezeV1 is one change to a freeze: set (Active true) or lifted (Active
// false, an unfreeze). The latest value of a scope's key is what holds; an
// active freeze holds until ExpiresAt. The envelope itself has no expiry, so
// an expired or lifted freeze still verifies in the history.
type FreezeV1 struct {
	FreezeID string `json:"freeze_id"`
	// Scope is FreezeGlobal or one service.
	Scope  string `json:"scope"`
	Active bool   `json:"active"`
	// Reason is why the freeze was set, or lifted.
	Reason string `json:"reason"`
	// By is the approver who set or lifted it.
	By      string    `json:"by"`
	Channel string    `json:"channel"`
	At      time.Time `json:"at"`
	// ExpiresAt is when an active freeze stops holding on its own.
	ExpiresAt time.Time `json:"expires_at"`
	// Lifts is, for an unfreeze, the freeze id it lifted.
	Lifts string `json:"lifts,omitempty"`
}

// HoldsAt reports whether f is an active freeze at now.
func (f FreezeV1) HoldsAt(now time.Time) bool {
	return f.Active && now.Before(f.ExpiresAt)
}

// Covers reports whether f's scope covers service.
func (f FreezeV1) Covers(service string) bool {
	return f.Scope == FreezeGlobal || f.Scope == service
}

// FreezeKey is the agentk_freezes key of scope.
func FreezeKey(scope string) string { return scope }
