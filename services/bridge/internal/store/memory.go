package store

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	"agentk/services/bridge/internal/approval"
)

// Memory is a Store in a map, with the same revision semantics as KV. Records
// are stored encoded, so callers never share memory with it.
type Memory struct {
	mu   sync.Mutex
	rev  uint64
	recs map[string]memEntry
	// watches are the signals of the watches of each id: put signals
	// them, and each watch reads the record.
	watches map[string][]chan struct{}
}

type memEntry struct {
	data []byte
	rev  uint64
}

// NewMemory returns an empty Memory store.
func NewMemory() *Memory {
	return &Memory{recs: map[string]memEntry{}, watches: map[string][]chan struct{}{}}
}

// Create implements Store.
func (m *Memory) Create(_ context.Context, rec approval.Record) error {
	if !ValidKey(rec.DecisionID) {
		return fmt.Errorf("%w: %q", ErrBadKey, rec.DecisionID)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.recs[rec.DecisionID]; ok {
		return fmt.Errorf("%w: %s", ErrExists, rec.DecisionID)
	}
	return m.put(rec)
}

// Get implements Store.
func (m *Memory) Get(_ context.Context, id string) (approval.Record, uint64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.recs[id]
	if !ok {
		return approval.Record{}, 0, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	var rec approval.Record
	if err := json.Unmarshal(e.data, &rec); err != nil {
		return approval.Record{}, 0, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	return rec, e.rev, nil
}

// Update implements Store.
func (m *Memory) Update(_ context.Context, rec approval.Record, rev uint64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.recs[rec.DecisionID]; !ok || e.rev != rev {
		return fmt.Errorf("%w: %s", ErrConflict, rec.DecisionID)
	}
	return m.put(rec)
}

// List implements Store.
func (m *Memory) List(ctx context.Context) ([]approval.Record, error) {
	m.mu.Lock()
	ids := make([]string, 0, len(m.recs))
	for id := range m.recs {
		ids = append(ids, id)
	}
	m.mu.Unlock()
	sort.Strings(ids)
	out := make([]approval.Record, 0, len(ids))
	for _, id := range ids {
		r, _, err := m.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

func (m *Memory) put(rec approval.Record) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	m.rev++
	m.recs[rec.DecisionID] = memEntry{data: b, rev: m.rev}
	for _, sig := range m.watches[rec.DecisionID] {
		select {
		case sig <- struct{}{}:
		default: // signalled already: the watch reads the latest record
		}
	}
	return nil
}

// Watch implements Store: each write of id signals the watch, which reads
// the record then (a write the watch had not read yet is not sent on its
// own; the latest is).
func (m *Memory) Watch(ctx context.Context, id string) (<-chan approval.Record, error) {
	if !ValidKey(id) {
		return nil, fmt.Errorf("%w: %q", ErrBadKey, id)
	}
	sig := make(chan struct{}, 1)
	sig <- struct{}{} // the record as it is now
	m.mu.Lock()
	m.watches[id] = append(m.watches[id], sig)
	m.mu.Unlock()
	out := make(chan approval.Record, 1)
	go func() {
		defer close(out)
		defer m.unwatch(id, sig)
		for {
			select {
			case <-ctx.Done():
				return
			case <-sig:
			}
			rec, _, err := m.Get(ctx, id)
			if err != nil {
				continue // not recorded yet
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

func (m *Memory) unwatch(id string, sig chan struct{}) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ws := m.watches[id]
	for i, w := range ws {
		if w == sig {
			m.watches[id] = append(ws[:i:i], ws[i+1:]...)
			break
		}
	}
	if len(m.watches[id]) == 0 {
		delete(m.watches, id)
	}
}
