package incidents_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"agentk/contracts"
	"agentk/services/ingester/internal/incidents"

	"github.com/stretchr/testify/require"
)

// waves counts sequential round trips: a call sent after an earlier one was
// awaited starts a new round trip; calls sent before any is awaited share
// one. A blocking call is sent and awaited at once.
type waves struct {
	mu     sync.Mutex
	n      int
	waited bool
}

func (w *waves) send() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.n == 0 || w.waited {
		w.n++
		w.waited = false
	}
}

func (w *waves) await() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.waited = true
}

func (w *waves) reset() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := w.n
	w.n, w.waited = 0, false
	return n
}

// blocking is one blocking call: sent, then awaited.
func blocking[T any](w *waves, f func() (T, error)) (T, error) {
	w.send()
	defer w.await()
	return f()
}

// pending is one call sent now and awaited when its Pending is called.
func pending[T any](w *waves, p incidents.Pending[T]) incidents.Pending[T] {
	w.send()
	return func() (T, error) {
		w.await()
		return p()
	}
}

// timedKV and timedPub count the round trips of every call.
type timedKV struct {
	*memKV
	w *waves
}

func (k timedKV) Get(ctx context.Context, key string) (incidents.Entry, error) {
	return blocking(k.w, func() (incidents.Entry, error) { return k.memKV.Get(ctx, key) })
}

func (k timedKV) Create(ctx context.Context, key string, v []byte) (uint64, error) {
	return blocking(k.w, func() (uint64, error) { return k.memKV.Create(ctx, key, v) })
}

func (k timedKV) CreateAsync(ctx context.Context, key string, v []byte) incidents.Pending[uint64] {
	return pending(k.w, k.memKV.CreateAsync(ctx, key, v))
}

func (k timedKV) CreateNewAsync(ctx context.Context, key string, v []byte) incidents.Pending[uint64] {
	return pending(k.w, k.memKV.CreateNewAsync(ctx, key, v))
}

func (k timedKV) Recreate(ctx context.Context, key string, v []byte) (uint64, error) {
	return blocking(k.w, func() (uint64, error) { return k.memKV.Recreate(ctx, key, v) })
}

func (k timedKV) Update(ctx context.Context, key string, v []byte, rev uint64) (uint64, error) {
	return blocking(k.w, func() (uint64, error) { return k.memKV.Update(ctx, key, v, rev) })
}

func (k timedKV) Delete(ctx context.Context, key string) error {
	_, err := blocking(k.w, func() (struct{}, error) { return struct{}{}, k.memKV.Delete(ctx, key) })
	return err
}

func (k timedKV) Keys(ctx context.Context, filter string) ([]string, error) {
	return blocking(k.w, func() ([]string, error) { return k.memKV.Keys(ctx, filter) })
}

type timedPub struct {
	*pub
	w *waves
}

func (p timedPub) Publish(ctx context.Context, a incidents.Alert, id string) incidents.Pending[bool] {
	return pending(p.w, p.pub.Publish(ctx, a, id))
}

// TestRoundTrips: a new incident costs two sequential round trips (the
// index key with a read of the record; then the record, its firing alert
// and the publication, sent together and awaited together), and an alert
// of an incident this process knows is open costs one. The first opening
// also lists the bucket once, to learn the slots held.
func TestRoundTrips(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := &waves{}
	x := incidents.New(timedKV{newKV(), w}, timedPub{newPub(), w}, 1000, time.Hour)
	_, err := x.Ingest(ctx, alert("warm", "r", "f", t0, contracts.AlertFiring), t0)
	require.NoError(t, err)
	require.Equal(t, 3, w.reset(), "the first opening lists the bucket once")
	for _, tc := range []struct {
		name    string
		a       contracts.AlertV1
		outcome incidents.Outcome
		trips   int
	}{
		{"new incident", alert("svc-1", "r", "f", t0, contracts.AlertFiring), incidents.Opened, 2},
		{"another new incident", alert("svc-2", "r", "f", t0, contracts.AlertFiring), incidents.Opened, 2},
		{"alert of a known open incident", alert("svc-1", "r", "f2", t0.Add(time.Second), contracts.AlertFiring), incidents.Attached, 1},
		{"re-delivered alert of a known open incident", alert("svc-1", "r", "f2", t0.Add(time.Second), contracts.AlertFiring), incidents.Duplicate, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := x.Ingest(ctx, tc.a, t0.Add(time.Minute))
			require.NoError(t, err)
			require.Equal(t, tc.outcome, r.Outcome)
			require.Equal(t, tc.trips, w.reset(), fmt.Sprintf("round trips of %s", tc.name))
		})
	}
}
