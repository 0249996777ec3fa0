package envelope

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"

	"github.com/nats-io/nkeys"
)

// Roles: one per service. A key belongs to exactly one role.
const (
	RoleIngester     = "ingester"
	RoleSandbox      = "sandbox"
	RoleInvestigator = "investigator"
	RoleReviewer     = "reviewer"
	RoleGate         = "gate"
	RoleBridge       = "bridge"
	RoleDeployer     = "deployer"
)

// Roles lists every role.
var Roles = []string{RoleIngester, RoleSandbox, RoleInvestigator, RoleReviewer, RoleGate, RoleBridge, RoleDeployer}

// signs is the one table of which role produces which subject.
var signs = map[string][]string{
	RoleIngester:     {"agentk.alert.v1"},
	RoleSandbox:      {"agentk.evidence.v1", "agentk.tool.v1.reply"},
	RoleInvestigator: {"agentk.report.v1", "agentk.tool.v1"},
	RoleReviewer:     {"agentk.review.v1"},
	RoleGate:         {"agentk.decision.v1"},
	RoleBridge:       {"agentk.approval.v1", "agentk.freeze.v1"},
	// The deployer signs agentk.tool.v1 only for its recovery check: the
	// sandbox accepts a deployer-signed call for service_overview of the
	// alert's own service and nothing else.
	RoleDeployer: {"agentk.action.v1", "agentk.ledger.v1", "agentk.cooldown.v1", "agentk.tool.v1"},
}

// RoleMaySign reports whether role produces subject.
func RoleMaySign(role, subject string) bool {
	for _, s := range signs[role] {
		if s == subject || s == subjectBase(subject) {
			return true
		}
	}
	return false
}

// SubjectsSignedBy returns the subjects role produces.
func SubjectsSignedBy(role string) []string { return append([]string(nil), signs[role]...) }

// KeyEntry is one public key and the role it may sign for.
type KeyEntry struct {
	KeyID string `json:"kid"`
	Role  string `json:"role"`
}

// Keyring maps key ids to roles. The zero value is empty; build one with
// NewKeyring or LoadKeyring.
type Keyring struct {
	keys     map[string]KeyEntry
	verified verifiedCache
}

// NewKeyring builds a keyring, rejecting malformed public keys and unknown roles.
func NewKeyring(entries ...KeyEntry) (*Keyring, error) {
	k := &Keyring{keys: map[string]KeyEntry{}}
	for _, e := range entries {
		if _, ok := signs[e.Role]; !ok {
			return nil, fmt.Errorf("envelope: keyring: unknown role %q for %s", e.Role, e.KeyID)
		}
		if _, err := nkeys.FromPublicKey(e.KeyID); err != nil {
			return nil, fmt.Errorf("envelope: keyring: bad public key %q: %w", e.KeyID, err)
		}
		if prev, dup := k.keys[e.KeyID]; dup && prev.Role != e.Role {
			return nil, fmt.Errorf("envelope: keyring: %s listed for %s and %s", e.KeyID, prev.Role, e.Role)
		}
		k.keys[e.KeyID] = e
	}
	return k, nil
}

// Entries returns the keyring's entries sorted by role then key id.
func (k *Keyring) Entries() []KeyEntry {
	out := make([]KeyEntry, 0, len(k.keys))
	for _, e := range k.keys {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Role != out[j].Role {
			return out[i].Role < out[j].Role
		}
		return out[i].KeyID < out[j].KeyID
	})
	return out
}

// MarshalJSON writes the keyring as a list of entries.
func (k *Keyring) MarshalJSON() ([]byte, error) { return json.Marshal(k.Entries()) }

// LoadKeyring reads a JSON list of {"kid","role"} entries.
func LoadKeyring(path string) (*Keyring, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("envelope: keyring: %w", err)
	}
	var entries []KeyEntry
	if err := json.Unmarshal(b, &entries); err != nil {
		return nil, fmt.Errorf("envelope: keyring %s: %w", path, err)
	}
	return NewKeyring(entries...)
}
