package incidents_test

import (
	"context"
	"encoding/json"
	"errors"
	"path"
	"sort"
	"strings"
	"sync"

	"agentk/contracts"
	"agentk/services/ingester/internal/incidents"
)

// memKV is an in-memory KV with revisions, like a JetStream bucket.
type memKV struct {
	mu   sync.Mutex
	rev  uint64
	data map[string]incidents.Entry
	// used holds every key ever written: a deleted key keeps its delete
	// marker in a JetStream bucket.
	used map[string]bool
	fail error // every call fails with it when set
}

func newKV() *memKV { return &memKV{data: map[string]incidents.Entry{}, used: map[string]bool{}} }

func (m *memKV) Get(_ context.Context, key string) (incidents.Entry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail != nil {
		return incidents.Entry{}, m.fail
	}
	e, ok := m.data[key]
	if !ok {
		return incidents.Entry{}, incidents.ErrNotFound
	}
	return e, nil
}

func (m *memKV) Create(_ context.Context, key string, v []byte) (uint64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail != nil {
		return 0, m.fail
	}
	if _, ok := m.data[key]; ok {
		return 0, incidents.ErrExists
	}
	m.rev++
	m.data[key] = incidents.Entry{Value: append([]byte(nil), v...), Revision: m.rev}
	m.used[key] = true
	return m.rev, nil
}

// CreateAsync creates at once; the Pending returns the outcome.
func (m *memKV) CreateAsync(ctx context.Context, key string, v []byte) incidents.Pending[uint64] {
	rev, err := m.Create(ctx, key, v)
	return func() (uint64, error) { return rev, err }
}

// CreateNewAsync creates a key never written at once; the Pending returns
// the outcome, ErrUsed for a key written before.
func (m *memKV) CreateNewAsync(ctx context.Context, key string, v []byte) incidents.Pending[uint64] {
	m.mu.Lock()
	used := m.used[key]
	m.mu.Unlock()
	if used {
		return failed[uint64](incidents.ErrUsed)
	}
	return m.CreateAsync(ctx, key, v)
}

// Recreate is Create.
func (m *memKV) Recreate(ctx context.Context, key string, v []byte) (uint64, error) {
	return m.Create(ctx, key, v)
}

func (m *memKV) Update(_ context.Context, key string, v []byte, rev uint64) (uint64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail != nil {
		return 0, m.fail
	}
	if e, ok := m.data[key]; !ok || e.Revision != rev {
		return 0, incidents.ErrConflict
	}
	m.rev++
	m.data[key] = incidents.Entry{Value: append([]byte(nil), v...), Revision: m.rev}
	m.used[key] = true
	return m.rev, nil
}

func (m *memKV) Delete(_ context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail != nil {
		return m.fail
	}
	delete(m.data, key)
	return nil
}

// Keys matches NATS filters on dot-separated tokens ("*" is one token).
func (m *memKV) Keys(_ context.Context, filter string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail != nil {
		return nil, m.fail
	}
	var out []string
	for k := range m.data {
		if ok, _ := path.Match(toGlob(filter), toGlob(k)); ok || filter == ">" {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out, nil
}

// toGlob maps dots to slashes so path.Match's * stays within one token.
func toGlob(s string) string {
	b := []byte(s)
	for i := range b {
		if b[i] == '.' {
			b[i] = '/'
		}
	}
	return string(b)
}

// pub records what was published and de-duplicates by message id, as
// JetStream does inside its window.
type pub struct {
	mu   sync.Mutex
	ids  map[string]bool
	msgs []contracts.AlertV1
	fail error
	// calls counts every Publish, duplicates included.
	calls int
}

func newPub() *pub { return &pub{ids: map[string]bool{}} }

func (p *pub) Publish(_ context.Context, a incidents.Alert, id string) incidents.Pending[bool] {
	fresh, err := p.store(a, id)
	return func() (bool, error) { return fresh, err }
}

func (p *pub) store(a incidents.Alert, id string) (bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls++
	if p.fail != nil {
		return false, p.fail
	}
	if p.ids[id] {
		return false, nil
	}
	p.ids[id] = true
	p.msgs = append(p.msgs, a.AlertV1)
	return true, nil
}

// failed is a Pending that fails with err.
func failed[T any](err error) incidents.Pending[T] {
	return func() (T, error) {
		var zero T
		return zero, err
	}
}

func (p *pub) published() []contracts.AlertV1 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]contracts.AlertV1(nil), p.msgs...)
}

var errDown = errors.New("nats: connection closed")

// firing is the set of firing alerts kv holds, as fp keys: every fp key, and
// the opening alert of every incident record that has not resolved it (a
// new incident writes no fp key for its own alert).
func (m *memKV) firing() map[string]bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]bool{}
	for k, e := range m.data {
		switch {
		case strings.HasPrefix(k, "fp."):
			out[k] = true
		case strings.HasPrefix(k, "inc-"):
			var rec incidents.Record
			if json.Unmarshal(e.Value, &rec) == nil && !rec.AlertResolved && !rec.Alert.NoData {
				out["fp."+rec.IncidentID+"."+rec.Alert.Fingerprint] = true
			}
		}
	}
	return out
}
