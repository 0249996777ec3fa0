// Package kvstore is the deployer's adapter to its JetStream KV buckets:
// agentk_nonces (used approval nonces and the journal of each action),
// agentk_spent (consumed decisions), agentk_cooldown, agentk_releases and
// agentk_leases (which replica acts), and
// the read-only agentk_freezes and agentk_incidents. Values are opaque bytes here; signing and
// verification happen in the core's callers.
package kvstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

var (
	// ErrNotFound means the key does not exist.
	ErrNotFound = errors.New("kvstore: not found")
	// ErrConflict means a create found the key, or an update found another
	// revision: someone else wrote first.
	ErrConflict = errors.New("kvstore: revision conflict")
)

// Entry is a value and the revision it was read at.
type Entry struct {
	Value    []byte
	Revision uint64
}

// Bucket is one KV bucket with compare-and-set writes.
type Bucket struct {
	kv jetstream.KeyValue
}

// New wraps a JetStream KV bucket.
func New(kv jetstream.KeyValue) *Bucket { return &Bucket{kv: kv} }

// Open binds to an existing bucket (the fabric creates them at start-up).
func Open(ctx context.Context, js jetstream.JetStream, name string) (*Bucket, error) {
	kv, err := js.KeyValue(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("kvstore: bucket %s: %w", name, err)
	}
	return New(kv), nil
}

// OpTimeout bounds each Get, Put and Delete, whatever the caller's context:
// nats.go bounds a request by the context's deadline when it has one (in a
// test, the whole test's), so a request swallowed by a node as it died or
// was cut off would wait that long; the caller sees a timeout instead, which
// it treats as an unreachable store (retry), never as an answer.
//
// It is not platform/bus's bound on a clustered read (leaderKV: each attempt
// max(PublishTimeout/4, 500 ms), retried within the caller's deadline, or
// PublishTimeout without one), and cannot become it without changing
// behaviour: that bound covers only Get, and only on a bucket of more than
// one replica (bus.KeyValue returns nats.go's own bucket otherwise), and it
// retries inside the call, where this one caps the whole operation, writes
// included, and leaves the retry to the caller (a write must not be sent
// again blindly: a compare-and-set that was applied would come back as a
// conflict). Moving this cap into platform/bus would bound every service's
// KV writes, not the deployer's alone (issue 36).
const OpTimeout = 10 * time.Second

// Get returns the entry at key. It returns ErrNotFound when the key does not
// exist or was deleted.
func (b *Bucket) Get(ctx context.Context, key string) (Entry, error) {
	ctx, cancel := context.WithTimeout(ctx, OpTimeout)
	defer cancel()
	e, err := b.kv.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
		return Entry{}, fmt.Errorf("%w: %s/%s", ErrNotFound, b.kv.Bucket(), key)
	}
	if err != nil {
		return Entry{}, fmt.Errorf("kvstore: get %s/%s: %w", b.kv.Bucket(), key, err)
	}
	return Entry{Value: e.Value(), Revision: e.Revision()}, nil
}

// Put writes value at key if the key is still at rev; rev 0 means the key
// must not exist. It returns ErrConflict when someone else wrote first.
func (b *Bucket) Put(ctx context.Context, key string, value []byte, rev uint64) (uint64, error) {
	ctx, cancel := context.WithTimeout(ctx, OpTimeout)
	defer cancel()
	var (
		n   uint64
		err error
	)
	if rev == 0 {
		n, err = b.kv.Create(ctx, key, value)
	} else {
		n, err = b.kv.Update(ctx, key, value, rev)
	}
	if errors.Is(err, jetstream.ErrKeyExists) || isWrongSequence(err) {
		return 0, fmt.Errorf("%w: %s/%s at revision %d", ErrConflict, b.kv.Bucket(), key, rev)
	}
	if err != nil {
		return 0, fmt.Errorf("kvstore: put %s/%s: %w", b.kv.Bucket(), key, err)
	}
	return n, nil
}

// Delete removes key if it is still at rev, so that a create finds it
// absent. It returns ErrConflict when someone else wrote first.
func (b *Bucket) Delete(ctx context.Context, key string, rev uint64) error {
	ctx, cancel := context.WithTimeout(ctx, OpTimeout)
	defer cancel()
	err := b.kv.Delete(ctx, key, jetstream.LastRevision(rev))
	if isWrongSequence(err) {
		return fmt.Errorf("%w: %s/%s at revision %d", ErrConflict, b.kv.Bucket(), key, rev)
	}
	if err != nil {
		return fmt.Errorf("kvstore: delete %s/%s: %w", b.kv.Bucket(), key, err)
	}
	return nil
}

// ListTimeout bounds Keys, whatever the caller's context.
const ListTimeout = 30 * time.Second

// Keys lists the bucket's keys; an empty bucket is no error. nats.go lists
// through an ordered consumer whose creation request waits as long as ctx
// does (for ever without a deadline): a request the cluster never answers
// (sent to a node as it died, or while there is no meta leader) held a
// deployer reconciling at the start of its lease, which never consumed an
// approval again (issue 36). So a listing gets ListTimeout, and one cut
// short is an error, never a shorter list.
func (b *Bucket) Keys(ctx context.Context) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, ListTimeout)
	defer cancel()
	lister, err := b.kv.ListKeys(ctx)
	if err != nil {
		return nil, fmt.Errorf("kvstore: keys %s: %w", b.kv.Bucket(), err)
	}
	var keys []string
	for k := range lister.Keys() {
		keys = append(keys, k)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("kvstore: keys %s: listing not finished: %w", b.kv.Bucket(), err)
	}
	return keys, nil
}

func isWrongSequence(err error) bool {
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) && apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence
}
