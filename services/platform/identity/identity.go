// Package identity creates and loads the nkey identities of the agentk roles:
// one user seed per role (and one for the provisioning admin), kept in a
// directory as 0600 files, and the keyring.json that maps public keys to roles.
// `agentk keys` calls Ensure; every process calls Load.
package identity

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"agentk/contracts/envelope"
	"agentk/platform/topology"

	"github.com/nats-io/nkeys"
)

var (
	// ErrMissing is returned by Load when a role's seed file does not exist.
	ErrMissing = errors.New("identity: missing seed")
	// ErrBadSeed is returned when a seed file is not a user nkey seed.
	ErrBadSeed = errors.New("identity: bad seed")
	// ErrPerm is returned when a seed file is readable by others than its owner.
	ErrPerm = errors.New("identity: seed file too open")
	// ErrUnknownRole is returned for a role with no identity (or whose seed
	// is not in this keys directory).
	ErrUnknownRole = errors.New("identity: unknown role")
	// ErrKeyring is returned when keyring.json is missing, unreadable, or
	// disagrees with a seed in the same directory.
	ErrKeyring = errors.New("identity: keyring")
)

// KeyringFile is the keyring's file name inside the keys directory.
const KeyringFile = "keyring.json"

// Roles lists every identity: the envelope roles and the admin.
func Roles() []string { return append(append([]string(nil), envelope.Roles...), topology.RoleAdmin) }

// SeedFile returns the seed path of role in dir.
func SeedFile(dir, role string) string { return filepath.Join(dir, role+".nk") }

// Set is the loaded identities.
type Set struct {
	dir   string
	seeds map[string][]byte
	pubs  map[string]string
	kr    *envelope.Keyring // from keyring.json (LoadAvailable); nil: built from pubs

	// signers are the roles' signers, each key derived once.
	mu      sync.Mutex
	signers map[string]*envelope.Signer
}

// Ensure creates dir (0700) and a seed for every role that has none, keeps the
// existing ones, and rewrites keyring.json. It returns the loaded set, or
// ErrBadSeed/ErrPerm for an existing file that is unusable, or the I/O error.
func Ensure(dir string) (*Set, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("identity: %w", err)
	}
	for _, r := range Roles() {
		path := SeedFile(dir, r)
		if _, err := os.Stat(path); err == nil {
			continue
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("identity: %s: %w", path, err)
		}
		kp, err := nkeys.CreateUser()
		if err != nil {
			return nil, fmt.Errorf("identity: create %s: %w", r, err)
		}
		seed, err := kp.Seed()
		if err != nil {
			return nil, fmt.Errorf("identity: seed %s: %w", r, err)
		}
		if err := writeExclusive(path, append(seed, '\n')); err != nil {
			return nil, err
		}
	}
	s, err := Load(dir)
	if err != nil {
		return nil, err
	}
	if err := s.WriteKeyring(); err != nil {
		return nil, err
	}
	return s, nil
}

// writeExclusive creates path 0600, failing if it exists (two concurrent
// Ensure calls never overwrite each other's seed).
func writeExclusive(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("identity: %w", err)
	}
	if _, err := f.Write(b); err != nil {
		_ = f.Close()
		return fmt.Errorf("identity: write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return fmt.Errorf("identity: sync %s: %w", path, err)
	}
	return f.Close()
}

// Load reads every role's seed from dir. It returns ErrMissing, ErrPerm or
// ErrBadSeed naming every unusable file at once.
func Load(dir string) (*Set, error) {
	s := &Set{dir: dir, seeds: map[string][]byte{}, pubs: map[string]string{}}
	var errs []error
	for _, r := range Roles() {
		seed, pub, err := LoadSeed(SeedFile(dir, r))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		s.seeds[r], s.pubs[r] = seed, pub
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return s, nil
}

// LoadAvailable reads keyring.json and whichever seeds dir holds: what a
// production container has (its own seed and everyone's public keys, never the
// others' seeds). Each present seed must be 0600, valid, and agree with the
// keyring. It returns ErrKeyring, ErrPerm or ErrBadSeed, every problem at once.
func LoadAvailable(dir string) (*Set, error) {
	kr, err := envelope.LoadKeyring(filepath.Join(dir, KeyringFile))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrKeyring, err)
	}
	roleOf := map[string]string{}
	for _, e := range kr.Entries() {
		roleOf[e.KeyID] = e.Role
	}
	s := &Set{dir: dir, seeds: map[string][]byte{}, pubs: map[string]string{}, kr: kr}
	var errs []error
	for _, r := range Roles() {
		seed, pub, err := LoadSeed(SeedFile(dir, r))
		if errors.Is(err, ErrMissing) {
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if r != topology.RoleAdmin && roleOf[pub] != r {
			errs = append(errs, fmt.Errorf("%w: %s holds %s, which keyring.json does not list for %s", ErrKeyring, SeedFile(dir, r), pub, r))
			continue
		}
		s.seeds[r], s.pubs[r] = seed, pub
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return s, nil
}

// Has reports whether the set holds role's seed.
func (s *Set) Has(role string) bool { _, ok := s.seeds[role]; return ok }

// LoadSeed reads one user seed file and returns the seed and its public key.
// It returns ErrMissing, ErrPerm (group or other may read it) or ErrBadSeed.
func LoadSeed(path string) (seed []byte, pub string, err error) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", fmt.Errorf("%w: %s", ErrMissing, path)
	}
	if err != nil {
		return nil, "", fmt.Errorf("identity: %w", err)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return nil, "", fmt.Errorf("%w: %s has mode %o, want 0600", ErrPerm, path, st.Mode().Perm())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, "", fmt.Errorf("identity: %w", err)
	}
	seed = bytes.TrimSpace(b)
	return ParseSeed(seed, path)
}

// ParseSeed checks that seed is an nkey user seed and returns it with its
// public key; where names the source in errors. It returns ErrBadSeed.
func ParseSeed(seed []byte, where string) ([]byte, string, error) {
	kp, err := nkeys.FromSeed(seed)
	if err != nil {
		return nil, "", fmt.Errorf("%w: %s: %v", ErrBadSeed, where, err)
	}
	pub, err := kp.PublicKey()
	if err != nil || !strings.HasPrefix(pub, "U") {
		return nil, "", fmt.Errorf("%w: %s is not a user seed", ErrBadSeed, where)
	}
	return seed, pub, nil
}

// Dir returns the directory the set was loaded from.
func (s *Set) Dir() string { return s.dir }

// Seed returns role's seed, or ErrUnknownRole.
func (s *Set) Seed(role string) ([]byte, error) {
	b, ok := s.seeds[role]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownRole, role)
	}
	return b, nil
}

// PublicKey returns role's public key (its envelope key id), or "".
func (s *Set) PublicKey(role string) string { return s.pubs[role] }

// PublicKeys returns every role's public key, admin included: what the server
// configuration needs.
func (s *Set) PublicKeys() map[string]string {
	out := make(map[string]string, len(s.pubs))
	for r, p := range s.pubs {
		out[r] = p
	}
	return out
}

// Signer returns the envelope signer of role, or ErrUnknownRole. The key is
// derived from the seed once; every later call returns the same signer.
func (s *Set) Signer(role string) (*envelope.Signer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sg, ok := s.signers[role]; ok {
		return sg, nil
	}
	seed, err := s.Seed(role)
	if err != nil {
		return nil, err
	}
	sg, err := envelope.NewSigner(seed)
	if err != nil {
		return nil, err
	}
	if s.signers == nil {
		s.signers = map[string]*envelope.Signer{}
	}
	s.signers[role] = sg
	return sg, nil
}

// Keyring returns the keyring of the envelope roles (the admin signs nothing
// and is not in it).
func (s *Set) Keyring() (*envelope.Keyring, error) {
	if s.kr != nil {
		return s.kr, nil
	}
	entries := make([]envelope.KeyEntry, 0, len(envelope.Roles))
	for _, r := range envelope.Roles {
		if p, ok := s.pubs[r]; ok {
			entries = append(entries, envelope.KeyEntry{KeyID: p, Role: r})
		}
	}
	return envelope.NewKeyring(entries...)
}

// WriteKeyring writes dir/keyring.json (0644: public keys only) atomically.
// It returns ErrKeyring for a set loaded with LoadAvailable, which does not
// hold every public key's seed.
func (s *Set) WriteKeyring() error {
	if s.kr != nil {
		return fmt.Errorf("%w: a partial set does not rewrite keyring.json", ErrKeyring)
	}
	kr, err := s.Keyring()
	if err != nil {
		return fmt.Errorf("identity: %w", err)
	}
	b, err := json.MarshalIndent(kr.Entries(), "", "  ")
	if err != nil {
		return fmt.Errorf("identity: %w", err)
	}
	tmp, err := os.CreateTemp(s.dir, ".keyring-*")
	if err != nil {
		return fmt.Errorf("identity: %w", err)
	}
	defer func() { _ = os.Remove(tmp.Name()) }() // gone after the rename; cleans up a failed write
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("identity: %w", err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("identity: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("identity: %w", err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(s.dir, KeyringFile)); err != nil {
		return fmt.Errorf("identity: %w", err)
	}
	return nil
}
