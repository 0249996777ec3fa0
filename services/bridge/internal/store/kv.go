package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"

	"agentk/services/bridge/internal/approval"
)

// KV is the Store on a JetStream key-value bucket.
type KV struct{ kv jetstream.KeyValue }

// NewKV wraps an opened bucket.
func NewKV(kv jetstream.KeyValue) *KV { return &KV{kv: kv} }

// Create implements Store.
func (s *KV) Create(ctx context.Context, rec approval.Record) error {
	if !ValidKey(rec.DecisionID) {
		return fmt.Errorf("%w: %q", ErrBadKey, rec.DecisionID)
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	if _, err := s.kv.Create(ctx, rec.DecisionID, b); err != nil {
		if errors.Is(err, jetstream.ErrKeyExists) {
			return fmt.Errorf("%w: %s", ErrExists, rec.DecisionID)
		}
		return fmt.Errorf("%w: create %s: %v", ErrUnavailable, rec.DecisionID, err)
	}
	return nil
}

// Get implements Store.
func (s *KV) Get(ctx context.Context, id string) (approval.Record, uint64, error) {
	if !ValidKey(id) {
		return approval.Record{}, 0, fmt.Errorf("%w: %q", ErrBadKey, id)
	}
	e, err := s.kv.Get(ctx, id)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return approval.Record{}, 0, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if err != nil {
		return approval.Record{}, 0, fmt.Errorf("%w: get %s: %v", ErrUnavailable, id, err)
	}
	var rec approval.Record
	if err := json.Unmarshal(e.Value(), &rec); err != nil {
		return approval.Record{}, 0, fmt.Errorf("%w: decode %s: %v", ErrUnavailable, id, err)
	}
	return rec, e.Revision(), nil
}

// Update implements Store.
func (s *KV) Update(ctx context.Context, rec approval.Record, rev uint64) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	if _, err := s.kv.Update(ctx, rec.DecisionID, b, rev); err != nil {
		var apiErr *jetstream.APIError
		if errors.As(err, &apiErr) && apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence {
			return fmt.Errorf("%w: %s", ErrConflict, rec.DecisionID)
		}
		if errors.Is(err, jetstream.ErrKeyExists) {
			return fmt.Errorf("%w: %s", ErrConflict, rec.DecisionID)
		}
		return fmt.Errorf("%w: update %s: %v", ErrUnavailable, rec.DecisionID, err)
	}
	return nil
}

// List implements Store.
func (s *KV) List(ctx context.Context) ([]approval.Record, error) {
	lister, err := s.kv.ListKeys(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w: list: %v", ErrUnavailable, err)
	}
	defer func() { _ = lister.Stop() }()
	var out []approval.Record
	for k := range lister.Keys() {
		rec, _, err := s.Get(ctx, k)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, rec)
	}
	return out, nil
}

// Watch implements Store with a watch of the key (an ordered consumer of its
// subject, its last message first); a value that does not decode is
// skipped, as is a delete.
func (s *KV) Watch(ctx context.Context, id string) (<-chan approval.Record, error) {
	if !ValidKey(id) {
		return nil, fmt.Errorf("%w: %q", ErrBadKey, id)
	}
	w, err := s.kv.Watch(ctx, id, jetstream.IgnoreDeletes())
	if err != nil {
		return nil, fmt.Errorf("%w: watch %s: %v", ErrUnavailable, id, err)
	}
	out := make(chan approval.Record, 1)
	go func() {
		defer close(out)
		defer func() { _ = w.Stop() }()
		for {
			var e jetstream.KeyValueEntry
			select {
			case <-ctx.Done():
				return
			case u, ok := <-w.Updates():
				if !ok {
					return
				}
				e = u
			}
			if e == nil {
				continue // the initial value, if any, was delivered
			}
			var rec approval.Record
			if json.Unmarshal(e.Value(), &rec) != nil {
				continue
			}
			select {
			case out <- rec:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, nil
}
