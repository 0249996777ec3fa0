package httpport_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"agentk/contracts"
	"agentk/services/bridge/fakeslack"
	"agentk/services/bridge/internal/testkit"
)

// memKV is a tiny in-memory freezes bucket.
type memKV struct {
	mu   sync.Mutex
	vals map[string][]byte
	revs int
}

type memEntry struct {
	key string
	v   []byte
}

func (e memEntry) Bucket() string                  { return "agentk_freezes" }
func (e memEntry) Key() string                     { return e.key }
func (e memEntry) Value() []byte                   { return e.v }
func (e memEntry) Revision() uint64                { return 1 }
func (e memEntry) Created() time.Time              { return time.Time{} }
func (e memEntry) Delta() uint64                   { return 0 }
func (e memEntry) Operation() jetstream.KeyValueOp { return jetstream.KeyValuePut }

func (m *memKV) Get(_ context.Context, key string) (jetstream.KeyValueEntry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.vals[key]
	if !ok {
		return nil, jetstream.ErrKeyNotFound
	}
	return memEntry{key, v}, nil
}

func (m *memKV) Put(_ context.Context, key string, v []byte) (uint64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.vals[key] = v
	m.revs++
	return uint64(m.revs), nil
}

type lister chan string

func (l lister) Keys() <-chan string { return l }
func (l lister) Stop() error         { return nil }

func (m *memKV) ListKeys(context.Context, ...jetstream.WatchOpt) (jetstream.KeyLister, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	keys := make([]string, 0, len(m.vals))
	for k := range m.vals {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	l := make(lister, len(keys))
	for _, k := range keys {
		l <- k
	}
	close(l)
	return l, nil
}

// stored opens the sealed freeze under key as the gate and deployer do.
func (r *rig) stored(t *testing.T, key string) contracts.FreezeV1 {
	t.Helper()
	e, err := r.fkv.Get(context.Background(), key)
	require.NoError(t, err)
	var f contracts.FreezeV1
	_, err = r.keys.Keyring.Open(e.Value(), contracts.SubjectFreeze, r.clock.Now(), &f)
	require.NoError(t, err, "the freeze is bridge-signed")
	return f
}

func (r *rig) api(t *testing.T, path, token string, body any) (int, []byte) {
	t.Helper()
	b, err := json.Marshal(body)
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, r.srv.URL+path, bytes.NewReader(b))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := r.srv.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(resp.Body)
	return resp.StatusCode, buf.Bytes()
}

func TestAPIFreezeAndLift(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	cases := []struct {
		name   string
		path   string
		token  string
		body   any
		status int
	}{
		{name: "no token", path: "/api/v1/freezes", token: "nope", body: map[string]string{"scope": "checkout", "reason": "x", "duration": "1h"}, status: http.StatusUnauthorized},
		{name: "no reason", path: "/api/v1/freezes", token: aliceToken, body: map[string]string{"scope": "checkout", "duration": "1h"}, status: http.StatusUnprocessableEntity},
		{name: "forever", path: "/api/v1/freezes", token: aliceToken, body: map[string]string{"scope": "checkout", "reason": "x", "duration": "9000h"}, status: http.StatusUnprocessableEntity},
		{name: "bad scope", path: "/api/v1/freezes", token: aliceToken, body: map[string]string{"scope": "shop api", "reason": "x", "duration": "1h"}, status: http.StatusUnprocessableEntity},
		{name: "lift what is not frozen", path: "/api/v1/freezes/checkout/lift", token: aliceToken, body: map[string]string{"reason": "x"}, status: http.StatusNotFound},
		{name: "freeze", path: "/api/v1/freezes", token: aliceToken, body: map[string]string{"scope": "checkout", "reason": "black friday", "duration": "2h"}, status: http.StatusOK},
	}
	for _, tc := range cases {
		status, body := r.api(t, tc.path, tc.token, tc.body)
		require.Equal(t, tc.status, status, "%s: %s", tc.name, body)
	}
	f := r.stored(t, "checkout")
	require.True(t, f.Active)
	require.Equal(t, "alice", f.By, "the approver is the token's, never the body's")
	require.Equal(t, testkit.Epoch.Add(2*time.Hour), f.ExpiresAt)
	require.True(t, f.HoldsAt(r.clock.Now()))

	status, body := r.api(t, "/api/v1/freezes/checkout/lift", bobToken, map[string]string{"reason": "freeze over"})
	require.Equal(t, http.StatusOK, status, string(body))
	lifted := r.stored(t, "checkout")
	require.False(t, lifted.Active)
	require.Equal(t, f.FreezeID, lifted.Lifts)
	require.Equal(t, "bob", lifted.By)
}

func TestSlackFreezeButton(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	m := r.receive(t, testkit.Decision("d1", r.clock.Now()))
	req, _ := r.click(t, m, "U0ALICE", fakeslack.Freeze)
	require.Equal(t, http.StatusOK, r.send(t, req))
	f := r.stored(t, "checkout")
	require.True(t, f.Active)
	require.Equal(t, contracts.ChannelSlack, f.Channel)
	require.Equal(t, "alice", f.By)

	m2 := r.receive(t, testkit.Decision("d2", r.clock.Now()))
	req, _ = r.click(t, m2, "U0STRANGER", fakeslack.Freeze)
	require.Equal(t, http.StatusOK, r.send(t, req))
	require.Equal(t, f.FreezeID, r.stored(t, "checkout").FreezeID, "a non-approver freezes nothing")
}
