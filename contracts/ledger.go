package contracts

import (
	"time"

	"agentk/contracts/wiring"
)

// Subjects of deployer-signed KV values (never published on a stream).
const (
	SubjectLedger   = wiring.SubjectLedger
	SubjectCooldown = wiring.SubjectCooldown
)

// Release is one version of a service as the deployer saw it run.
type Release struct {
	Version    string    `json:"version"`
	Image      string    `json:"image"`
	ImageID    string    `json:"image_id,omitempty"`
	DeployedAt time.Time `json:"deployed_at"`
}

// ReleaseLedgerV1 is the deployer's release history of one service, oldest
// first; the last entry is what runs now. Stored in KV (bucket agentk_releases,
// key = service), sealed by the deployer.
type ReleaseLedgerV1 struct {
	Project   string    `json:"project"`
	Service   string    `json:"service"`
	Releases  []Release `json:"releases"`
	UpdatedAt time.Time `json:"updated_at"`
}

// RollbackTarget returns the release before the current one.
func (l ReleaseLedgerV1) RollbackTarget() (Release, bool) {
	if len(l.Releases) < 2 {
		return Release{}, false
	}
	return l.Releases[len(l.Releases)-2], true
}

// CooldownV1 is the last action taken on a service. Stored in KV (bucket
// agentk_cooldown, key = service), sealed by the deployer, taken with
// compare-and-set on the KV revision.
type CooldownV1 struct {
	Service  string    `json:"service"`
	ActionID string    `json:"action_id"`
	At       time.Time `json:"at"`
}
