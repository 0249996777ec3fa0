package lease

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"agentk/services/deployer/internal/kvstore"

	"github.com/stretchr/testify/require"
)

const ttl = 3 * time.Second

// memStore is an in-memory Store with the bucket's compare-and-set
// semantics; failPut, when set, can fail the n-th Put.
type memStore struct {
	mu      sync.Mutex
	seq     uint64
	value   []byte
	rev     uint64 // 0: absent or deleted
	writes  int
	failPut func(n int, ctx context.Context) error // n counts Puts from 1
}

func (m *memStore) Get(_ context.Context, key string) (kvstore.Entry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.rev == 0 {
		return kvstore.Entry{}, fmt.Errorf("%w: %s", kvstore.ErrNotFound, key)
	}
	return kvstore.Entry{Value: m.value, Revision: m.rev}, nil
}

func (m *memStore) Put(ctx context.Context, key string, value []byte, rev uint64) (uint64, error) {
	m.mu.Lock()
	m.writes++
	n, fail := m.writes, m.failPut
	m.mu.Unlock()
	if fail != nil {
		if err := fail(n, ctx); err != nil {
			return 0, err
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.rev != rev {
		return 0, fmt.Errorf("%w: %s at %d", kvstore.ErrConflict, key, rev)
	}
	m.seq++
	m.rev, m.value = m.seq, value
	return m.rev, nil
}

func (m *memStore) Delete(_ context.Context, key string, rev uint64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.rev != rev {
		return fmt.Errorf("%w: %s at %d", kvstore.ErrConflict, key, rev)
	}
	m.seq++
	m.rev, m.value = 0, nil
	return nil
}

// partitioned is a replica's view of s that fails every call once cut.
type partitioned struct {
	Store
	cut atomic.Bool
}

func (p *partitioned) Get(ctx context.Context, key string) (kvstore.Entry, error) {
	if p.cut.Load() {
		return kvstore.Entry{}, context.DeadlineExceeded
	}
	return p.Store.Get(ctx, key)
}

func (p *partitioned) Put(ctx context.Context, key string, value []byte, rev uint64) (uint64, error) {
	if p.cut.Load() {
		<-ctx.Done() // the request never comes back
		return 0, ctx.Err()
	}
	return p.Store.Put(ctx, key, value, rev)
}

// terms counts the terms running at once, and the most there ever were.
type terms struct {
	mu              sync.Mutex
	running, most   int
	started         map[string]time.Time
	stoppedByHolder map[string]time.Time
}

func newTerms() *terms {
	return &terms{started: map[string]time.Time{}, stoppedByHolder: map[string]time.Time{}}
}

// term is holder's term: it acts until its context ends.
func (ts *terms) term(holder string) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		ts.mu.Lock()
		ts.running++
		ts.most = max(ts.most, ts.running)
		ts.started[holder] = time.Now()
		ts.mu.Unlock()
		<-ctx.Done()
		ts.mu.Lock()
		ts.running--
		ts.stoppedByHolder[holder] = time.Now()
		ts.mu.Unlock()
		return nil
	}
}

func replica(s Store, holder string) *Lease {
	return &Lease{Store: s, Key: "deployer", Holder: holder, TTL: ttl, Now: time.Now}
}

// TestSighting: a standby's clock runs from when it first saw a revision,
// and it waits the longer of its own lease and the holder's.
func TestSighting(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC)
	rec := func(ttlMs int64) []byte {
		b, err := json.Marshal(Record{Holder: "a", TTLMs: ttlMs})
		require.NoError(t, err)
		return b
	}
	cases := []struct {
		name    string
		seen    []kvstore.Entry // seen one second apart from t0
		at      time.Duration   // asked at t0 + at
		expired bool
	}{
		{name: "first sight is never expired", seen: []kvstore.Entry{{Revision: 4, Value: rec(3000)}}, at: 0},
		{name: "unchanged for less than a lease", seen: []kvstore.Entry{{Revision: 4, Value: rec(3000)}, {Revision: 4}}, at: 2999 * time.Millisecond},
		{name: "unchanged for a whole lease", seen: []kvstore.Entry{{Revision: 4, Value: rec(3000)}, {Revision: 4}}, at: 3 * time.Second, expired: true},
		{name: "a renewal restarts the clock", seen: []kvstore.Entry{{Revision: 4, Value: rec(3000)}, {Revision: 5, Value: rec(3000)}}, at: 3 * time.Second},
		{name: "the holder's longer lease is waited", seen: []kvstore.Entry{{Revision: 4, Value: rec(9000)}}, at: 8 * time.Second},
		{name: "the holder's longer lease runs out", seen: []kvstore.Entry{{Revision: 4, Value: rec(9000)}}, at: 9 * time.Second, expired: true},
		{name: "an unreadable lease waits our own", seen: []kvstore.Entry{{Revision: 4, Value: []byte("{")}}, at: 3 * time.Second, expired: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var s sighting
			for i, e := range tc.seen {
				s = s.next(e, t0.Add(time.Duration(i)*time.Second))
			}
			require.Equal(t, tc.expired, s.expired(ttl, t0.Add(tc.at)))
		})
	}
}

// TestOneReplicaLeads: of three replicas on one lease, exactly one runs its
// term, through many renewals; the others report standby and who leads.
func TestOneReplicaLeads(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		s, ts := &memStore{}, newTerms()
		ctx, cancel := context.WithCancel(t.Context())
		var mu sync.Mutex
		modes := map[string]string{}
		var wg sync.WaitGroup
		for _, h := range []string{"a", "b", "c"} {
			l := replica(s, h)
			l.OnMode = func(mode, holder string) { mu.Lock(); modes[h] = mode + ":" + holder; mu.Unlock() }
			wg.Go(func() { require.NoError(t, l.Run(ctx, ts.term(h))) })
		}
		time.Sleep(10 * ttl)
		synctest.Wait()
		ts.mu.Lock()
		require.Equal(t, 1, ts.running)
		require.Equal(t, 1, ts.most)
		require.Len(t, ts.started, 1)
		ts.mu.Unlock()
		var leader string
		for h := range ts.started {
			leader = h
		}
		mu.Lock()
		for h, m := range modes {
			want := ModeStandby + ":" + leader
			if h == leader {
				want = ModeLeader + ":" + leader
			}
			require.Equal(t, want, m, h)
		}
		mu.Unlock()
		s.mu.Lock()
		require.Greater(t, s.writes, 10, "the leader renews every third of its lease")
		s.mu.Unlock()
		cancel()
		wg.Wait()
	})
}

// TestStandbyTakesOver: when the leader stops, the standby leads, never
// while the leader still acts: at once when the leader released the lease,
// within two leases when the leader was cut off and could not.
func TestStandbyTakesOver(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		cutOff bool // else the leader stops cleanly
		within time.Duration
	}{
		{name: "leader stopped cleanly releases the lease", within: ttl/3 + time.Millisecond},
		{name: "leader cut off from the bucket", cutOff: true, within: 2 * ttl},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				s, ts := &memStore{}, newTerms()
				view := &partitioned{Store: s}
				actx, stopA := context.WithCancel(t.Context())
				aDone := make(chan error, 1)
				go func() { aDone <- replica(view, "a").Run(actx, ts.term("a")) }()
				synctest.Wait()
				ctx, cancel := context.WithCancel(t.Context())
				bDone := make(chan error, 1)
				go func() { bDone <- replica(s, "b").Run(ctx, ts.term("b")) }()
				time.Sleep(2 * ttl)
				synctest.Wait()
				ts.mu.Lock()
				require.Contains(t, ts.started, "a")
				require.NotContains(t, ts.started, "b", "a standby while the leader renews")
				ts.mu.Unlock()

				stopped := time.Now()
				if tc.cutOff {
					view.cut.Store(true)
				} else {
					stopA()
					require.NoError(t, <-aDone)
				}
				time.Sleep(tc.within)
				synctest.Wait()
				ts.mu.Lock()
				defer ts.mu.Unlock()
				require.Contains(t, ts.started, "b", "the standby leads within %s", tc.within)
				require.Equal(t, 1, ts.most, "never two terms at once")
				require.False(t, ts.started["b"].Before(ts.stoppedByHolder["a"]), "b began after a stopped")
				t.Logf("taken over %s after the leader stopped", ts.started["b"].Sub(stopped))
				cancel()
				stopA()
			})
		})
	}
}

// TestLeaderStopsWhenItsRenewalFails: a leader whose renewal fails, or does
// not come back in time, ends its term within two thirds of a lease of its
// last renewal, before any standby may take over. Killer of the mutant
// deployer.lease_renewal.
func TestLeaderStopsWhenItsRenewalFails(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		failPut func(n int, ctx context.Context) error
	}{
		{name: "renewal refused", failPut: func(n int, _ context.Context) error {
			if n > 2 {
				return fmt.Errorf("%w: someone else wrote", kvstore.ErrConflict)
			}
			return nil
		}},
		{name: "renewal late", failPut: func(n int, ctx context.Context) error {
			if n > 2 {
				<-ctx.Done()
				return ctx.Err()
			}
			return nil
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				s := &memStore{failPut: tc.failPut}
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				ended := make(chan time.Time, 1)
				begun := make(chan time.Time, 1)
				go func() {
					_ = replica(s, "a").Run(ctx, func(tctx context.Context) error {
						begun <- time.Now()
						<-tctx.Done()
						ended <- time.Now()
						return nil
					})
				}()
				t0 := <-begun
				lastRenewal := t0.Add(ttl / 3) // the second Put, the last that succeeds
				select {
				case at := <-ended:
					require.LessOrEqual(t, at.Sub(lastRenewal), ttl*2/3, "stopped before a standby may take over")
				case <-time.After(3 * ttl):
					t.Fatal("the leader kept consuming after its renewal failed")
				}
			})
		})
	}
}

// TestLeaderTakesItsLeaseBackAtOnce: a leader whose renewal failed stops
// acting, and takes the lease back at its next try when the lease still
// names it (a bucket's leader election, not a standby): no lease to wait out.
func TestLeaderTakesItsLeaseBackAtOnce(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		failed     error
		wrote      string // the holder whose write the failed renewal leaves in the bucket ("": none)
		wantTerms  int32
		wantWithin time.Duration
	}{
		{name: "renewal failed, lease untouched", failed: context.DeadlineExceeded, wantTerms: 2, wantWithin: ttl / 2},
		{name: "renewal late, applied all the same", failed: context.DeadlineExceeded, wrote: "a", wantTerms: 2, wantWithin: ttl / 2},
		{name: "renewal refused, another replica wrote", failed: kvstore.ErrConflict, wrote: "b", wantTerms: 1, wantWithin: ttl / 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				s := &memStore{}
				s.failPut = func(n int, _ context.Context) error {
					if n != 3 {
						return nil
					}
					if tc.wrote != "" {
						s.mu.Lock()
						s.seq++
						s.rev, s.value = s.seq, []byte(`{"holder":"`+tc.wrote+`","ttl_ms":3000}`)
						s.mu.Unlock()
					}
					return tc.failed
				}
				ts := newTerms()
				ctx, cancel := context.WithCancel(t.Context())
				done := make(chan error, 1)
				var starts atomic.Int32
				go func() {
					done <- replica(s, "a").Run(ctx, func(tctx context.Context) error {
						starts.Add(1)
						return ts.term("a")(tctx)
					})
				}()
				time.Sleep(ttl/3*2 + tc.wantWithin)
				synctest.Wait()
				require.Equal(t, tc.wantTerms, starts.Load())
				require.Equal(t, 1, ts.most, "never two terms at once")
				cancel()
				require.NoError(t, <-done)
			})
		})
	}
}
