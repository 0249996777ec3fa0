// Package store keeps the bridge's decision records. The production store is
// the JetStream KV bucket agentk_decisions; Memory is the same contract in a
// map for tests of the layers above.
package store

import (
	"context"
	"errors"
	"regexp"

	"agentk/services/bridge/internal/approval"
)

var (
	// ErrNotFound: no record for that decision id.
	ErrNotFound = errors.New("store: decision not found")
	// ErrConflict: the record changed since it was read (compare-and-set lost).
	ErrConflict = errors.New("store: record changed concurrently")
	// ErrExists: Create found a record already there.
	ErrExists = errors.New("store: decision already recorded")
	// ErrBadKey: a decision id that cannot be a key.
	ErrBadKey = errors.New("store: decision id is not a valid key")
	// ErrUnavailable: the backing store failed; retrying may help.
	ErrUnavailable = errors.New("store: unavailable")
)

// Store holds decision records keyed by decision id. Every write is a
// compare-and-set so one answer per decision holds across processes.
type Store interface {
	// Create stores a new record. ErrExists if one is there, ErrBadKey for an
	// unusable id, ErrUnavailable otherwise.
	Create(ctx context.Context, rec approval.Record) error
	// Get returns the record and its revision. ErrNotFound, ErrBadKey or ErrUnavailable.
	Get(ctx context.Context, id string) (approval.Record, uint64, error)
	// Update replaces the record if its revision is still rev. ErrConflict if
	// not, ErrUnavailable otherwise.
	Update(ctx context.Context, rec approval.Record, rev uint64) error
	// List returns every record. ErrUnavailable.
	List(ctx context.Context) ([]approval.Record, error)
	// Watch returns a channel that gets the record of id as it is when the
	// watch starts (if there is one), then each time it is written, until
	// ctx ends; then the channel closes. ErrBadKey or ErrUnavailable.
	Watch(ctx context.Context, id string) (<-chan approval.Record, error)
}

var keyRE = regexp.MustCompile(`^[-_=A-Za-z0-9][-_=.A-Za-z0-9]{0,254}$`)

// ValidKey reports whether id can be used as a KV key as is.
func ValidKey(id string) bool { return keyRE.MatchString(id) && id[len(id)-1] != '.' }
