// Package evidence stores sandbox-signed evidence envelopes once and
// resolves references to them (contracts.EvidenceRef): a report or a review
// names its evidence by id and digest, and each reader fetches an envelope
// from KV agentk_evidence, checks it against the reference, verifies its
// signature, and keeps it for the rest of the process. A reference that
// cannot be resolved fails closed: the caller treats it as evidence that did
// not verify.
package evidence

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/bus"
	"agentk/platform/mutant"
)

// Errors returned by Resolve. ErrStore is transient (the bucket could not be
// read: retry the message); every other error is final for that reference.
var (
	ErrRef      = errors.New("evidence: malformed reference")
	ErrMissing  = errors.New("evidence: referenced evidence is not stored")
	ErrMismatch = errors.New("evidence: stored envelope does not match its reference")
	ErrStore    = errors.New("evidence: store unreadable")
)

// MissingDeliveries is the delivery of a message from which a reference
// found missing fails closed; on an earlier delivery it is retried. A
// bucket opened through bus.Conn.KeyValue is read from its stream leader,
// which has every write the sandbox was told is stored, so "missing" there
// means never stored; the retry is for a reader of a bucket opened some
// other way (a direct get, which any replica, one that is behind included,
// answers).
const MissingDeliveries = 3

// Retry reports whether a message whose evidence failed to resolve with err
// on its delivery-th delivery should be redelivered rather than decided
// on: always for an unreadable store, and for missing evidence before
// MissingDeliveries. Every other failure is final.
func Retry(err error, delivery int) bool {
	return errors.Is(err, ErrStore) || errors.Is(err, ErrMissing) && delivery < MissingDeliveries
}

// Getter is the part of a jetstream.KeyValue a Resolver reads.
type Getter interface {
	Get(ctx context.Context, key string) (jetstream.KeyValueEntry, error)
}

// Putter is the part of a jetstream.KeyValue the sandbox writes with.
type Putter interface {
	Create(ctx context.Context, key string, value []byte, opts ...jetstream.KVCreateOpt) (uint64, error)
}

// Store writes env, the sealed envelope of evidence id, under its digest
// and returns the reference to it. Storing the same envelope again is not
// an error: the key is its content. A write that finds no stream leader (an
// election after a node was lost or cut off) is retried, each attempt
// bounded by storeAttempt, until ctx ends (storeTimeout when it has no
// deadline), as the bus retries a publish: an attempt stored after all makes
// the next one find the key, which is success. Without it a node lost
// mid-investigation failed tool calls, and the incomplete investigation
// could never approve a right rollback (issue 36).
func Store(ctx context.Context, kv Putter, id string, env envelope.Envelope) (contracts.EvidenceRef, error) {
	ref := contracts.RefTo(id, env)
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, storeTimeout)
		defer cancel()
	}
	data := env.Marshal()
	for attempt := 1; ; attempt++ {
		actx, cancel := context.WithTimeout(ctx, storeAttempt)
		_, err := kv.Create(actx, ref.Digest, data)
		cancel()
		if err == nil || errors.Is(err, jetstream.ErrKeyExists) {
			return ref, nil
		}
		if !bus.Transient(err) {
			return ref, fmt.Errorf("%w: store %s: %w", ErrStore, id, err)
		}
		t := time.NewTimer(min(time.Duration(attempt)*100*time.Millisecond, time.Second))
		select {
		case <-ctx.Done():
			t.Stop()
			return ref, fmt.Errorf("%w: store %s: %w", ErrStore, id, errors.Join(ctx.Err(), err))
		case <-t.C:
		}
	}
}

// storeAttempt bounds one write of Store, storeTimeout all of them when the
// caller's context has no deadline.
const (
	storeAttempt = 2500 * time.Millisecond
	storeTimeout = 10 * time.Second
)

// maxCached bounds the envelopes a Resolver keeps; past it, the cache
// starts again empty.
const maxCached = 4096

// Resolver fetches, checks and verifies referenced evidence, once per
// digest for the life of the process. Build one per service and share it.
type Resolver struct {
	keyring *envelope.Keyring
	kv      Getter

	mu    sync.Mutex
	cache map[string]cached
}

// cached is one envelope that matched its digest and whose signature held,
// with its payload decoded.
type cached struct {
	env envelope.Envelope
	ev  contracts.EvidenceV1
}

// NewResolver returns a Resolver reading kv (KV agentk_evidence) and
// verifying with keyring.
func NewResolver(keyring *envelope.Keyring, kv Getter) *Resolver {
	return &Resolver{keyring: keyring, kv: kv, cache: map[string]cached{}}
}

// Resolve returns the evidence ref names, verified as of now: the stored
// envelope's payload hashes to ref.Digest, names ref.ID, and is signed by
// the sandbox. It returns ErrRef for a reference that is not a digest,
// ErrMissing when nothing is stored under it, ErrMismatch when what is
// stored does not match it, an envelope error when it does not verify, and
// ErrStore (transient) when the bucket cannot be read. The value is shared
// with later callers: do not modify it.
func (r *Resolver) Resolve(ctx context.Context, ref contracts.EvidenceRef, now time.Time) (contracts.EvidenceV1, error) {
	if b, err := hex.DecodeString(ref.Digest); err != nil || len(b) != 32 {
		return contracts.EvidenceV1{}, fmt.Errorf("%w: digest %q of %s", ErrRef, ref.Digest, ref.ID)
	}
	r.mu.Lock()
	c, ok := r.cache[ref.Digest]
	r.mu.Unlock()
	if !ok {
		var err error
		if c, err = r.fetch(ctx, ref); err != nil {
			return contracts.EvidenceV1{}, err
		}
	}
	// Key, role, subject and time are checked on every use, as Open does;
	// the signature itself the keyring remembers.
	if err := r.keyring.VerifyProduced(c.env, contracts.SubjectEvidence, now); err != nil {
		return contracts.EvidenceV1{}, err
	}
	if c.ev.ID != ref.ID {
		return contracts.EvidenceV1{}, fmt.Errorf("%w: %s is stored as evidence %q", ErrMismatch, ref.ID, c.ev.ID)
	}
	if !ok {
		r.keep(ref.Digest, c)
	}
	return c.ev, nil
}

// Resolved is one reference's outcome in ResolveAll: Err is set (final: the
// evidence counts as rejected) or Value is the verified evidence.
type Resolved struct {
	ID    string
	Value contracts.EvidenceV1
	Err   error
}

// ErrNoResolver is every reference's outcome when there is no Resolver.
var ErrNoResolver = errors.New("evidence: no evidence store to resolve the reference")

// ResolveAll resolves refs for a message on its delivery-th delivery, one
// outcome a reference, in order. It returns an error instead, wrapping the
// reference's, when a failure should be retried (Retry): nothing is decided
// on such a message. A nil Resolver rejects every reference.
func (r *Resolver) ResolveAll(ctx context.Context, refs []contracts.EvidenceRef, delivery int, now time.Time) ([]Resolved, error) {
	out := make([]Resolved, 0, len(refs))
	for _, ref := range refs {
		if r == nil {
			out = append(out, Resolved{ID: ref.ID, Err: ErrNoResolver})
			continue
		}
		v, err := r.Resolve(ctx, ref, now)
		if Retry(err, delivery) {
			return nil, fmt.Errorf("evidence %s: %w", ref.ID, err)
		}
		out = append(out, Resolved{ID: ref.ID, Value: v, Err: err})
	}
	return out, nil
}

// fetch reads the envelope stored under ref's digest and checks that it is
// the one ref names; its signature is verified by the caller.
func (r *Resolver) fetch(ctx context.Context, ref contracts.EvidenceRef) (cached, error) {
	e, err := r.kv.Get(ctx, ref.Digest)
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound), errors.Is(err, jetstream.ErrKeyDeleted):
		return cached{}, fmt.Errorf("%w: %s (%s)", ErrMissing, ref.ID, ref.Digest)
	case err != nil:
		return cached{}, fmt.Errorf("%w: %s: %w", ErrStore, ref.ID, err)
	}
	env, err := envelope.Parse(e.Value())
	if err != nil {
		return cached{}, fmt.Errorf("%w: %s: %w", ErrMismatch, ref.ID, err)
	}
	if got := env.Digest(); got != ref.Digest && !mutant.Off(mutant.EvidenceRefDigest) {
		return cached{}, fmt.Errorf("%w: %s: payload digest %s, reference %s", ErrMismatch, ref.ID, got, ref.Digest)
	}
	c := cached{env: env}
	if err := json.Unmarshal(env.Payload, &c.ev); err != nil {
		return cached{}, fmt.Errorf("%w: payload of %s: %v", envelope.ErrMalformed, ref.ID, err)
	}
	return c, nil
}

// keep remembers c under digest.
func (r *Resolver) keep(digest string, c cached) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.cache) >= maxCached {
		r.cache = make(map[string]cached, 64)
	}
	r.cache[digest] = c
}
