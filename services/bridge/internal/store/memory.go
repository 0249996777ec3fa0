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
}

type memEntry struct {
	data []byte
	rev  uint64
}

// NewMemory returns an empty Memory store.
func NewMemory() *Memory { return &Memory{recs: map[string]memEntry{}} }

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
	return nil
}
