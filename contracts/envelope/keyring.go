package envelope

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"time"

	"agentk/contracts/wiring"

	"github.com/nats-io/nkeys"
)

// Roles: one per service, as declared in the wiring table. A key belongs to
// exactly one role.
const (
	RoleIngester     = wiring.RoleIngester
	RoleSandbox      = wiring.RoleSandbox
	RoleInvestigator = wiring.RoleInvestigator
	RoleReviewer     = wiring.RoleReviewer
	RoleGate         = wiring.RoleGate
	RoleBridge       = wiring.RoleBridge
	RoleDeployer     = wiring.RoleDeployer
)

// Roles lists every role.
var Roles = wiring.Roles

// RoleMaySign reports whether role produces subject (or the subject it
// extends, agentk.x.v1 for agentk.x.v1.y), by the wiring table.
func RoleMaySign(role, subject string) bool {
	return wiring.Produces(role, subject) || wiring.Produces(role, subjectBase(subject))
}

// SubjectsSignedBy returns the subjects role produces.
func SubjectsSignedBy(role string) []string { return wiring.SignedBy(role) }

// Open parses b, verifies it as signed by a producer of subject in the wiring
// table (as OpenAs does) and decodes its payload into v. For a subject with
// several producers the key's own role is expected when it is one of them; a
// key of any other role fails with ErrWrongRole, as against the subject's
// first producer.
func (k *Keyring) Open(b []byte, subject string, now time.Time, v any) (Envelope, error) {
	e, err := Parse(b)
	if err != nil {
		return Envelope{}, err
	}
	return k.open(e, subject, k.producer(e, subject), now, v)
}

// VerifyProduced is Verify expecting the producer of subject, as Open does:
// for an envelope already parsed, or verified as of another time than now
// (the audit verifies each message as of its issue).
func (k *Keyring) VerifyProduced(e Envelope, subject string, now time.Time) error {
	return k.Verify(e, subject, k.producer(e, subject), now)
}

// producer is the role e must carry to pass as subject's: its key's own role
// when that role produces subject, else the subject's first producer.
func (k *Keyring) producer(e Envelope, subject string) string {
	if signer := k.keys[e.KeyID].Role; wiring.Produces(signer, subject) {
		return signer
	}
	return wiring.Producer(subject)
}

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
		if !slices.Contains(wiring.Roles, e.Role) {
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
