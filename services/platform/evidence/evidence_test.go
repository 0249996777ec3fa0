package evidence_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"
	"github.com/stretchr/testify/require"

	"agentk/contracts"
	"agentk/contracts/envelope"
	"agentk/platform/evidence"
)

var t0 = time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)

type entry struct{ v []byte }

func (e entry) Bucket() string                  { return "" }
func (e entry) Key() string                     { return "" }
func (e entry) Value() []byte                   { return e.v }
func (e entry) Revision() uint64                { return 1 }
func (e entry) Created() time.Time              { return time.Time{} }
func (e entry) Delta() uint64                   { return 0 }
func (e entry) Operation() jetstream.KeyValueOp { return jetstream.KeyValuePut }

// bucket is a fake KV bucket: values by key, or one error for every call.
type bucket struct {
	vals map[string][]byte
	err  error
	gets int
}

func (b *bucket) Get(_ context.Context, key string) (jetstream.KeyValueEntry, error) {
	b.gets++
	if b.err != nil {
		return nil, b.err
	}
	v, ok := b.vals[key]
	if !ok {
		return nil, jetstream.ErrKeyNotFound
	}
	return entry{v}, nil
}

func (b *bucket) Create(_ context.Context, key string, value []byte, _ ...jetstream.KVCreateOpt) (uint64, error) {
	if b.err != nil {
		return 0, b.err
	}
	if _, ok := b.vals[key]; ok {
		return 0, jetstream.ErrKeyExists
	}
	b.vals[key] = value
	return 1, nil
}

func signer(t *testing.T) *envelope.Signer {
	t.Helper()
	kp, err := nkeys.CreateUser()
	require.NoError(t, err)
	seed, err := kp.Seed()
	require.NoError(t, err)
	s, err := envelope.NewSigner(seed)
	require.NoError(t, err)
	return s
}

type fixture struct {
	sandbox, investigator *envelope.Signer
	ring                  *envelope.Keyring
}

func newFixture(t *testing.T) fixture {
	f := fixture{sandbox: signer(t), investigator: signer(t)}
	var err error
	f.ring, err = envelope.NewKeyring(
		envelope.KeyEntry{KeyID: f.sandbox.KeyID(), Role: envelope.RoleSandbox},
		envelope.KeyEntry{KeyID: f.investigator.KeyID(), Role: envelope.RoleInvestigator},
	)
	require.NoError(t, err)
	return f
}

func (f fixture) seal(t *testing.T, s *envelope.Signer, ev contracts.EvidenceV1) envelope.Envelope {
	t.Helper()
	env, err := s.SealJSON(contracts.SubjectEvidence, ev, t0, 0)
	require.NoError(t, err)
	return env
}

func evidenceOf(id string, markers int) contracts.EvidenceV1 {
	ev := contracts.EvidenceV1{ID: id, InvestigationID: "inv-1", IncidentID: "inc-1", Service: "shop-api", Tool: "deployment_markers",
		Facts: contracts.Facts{MarkerQuery: true}}
	for range markers {
		ev.Facts.DeploymentMarkers = append(ev.Facts.DeploymentMarkers, contracts.DeploymentMarker{Service: "shop-api", Version: "v2", At: t0.Add(-10 * time.Minute)})
	}
	return ev
}

// TestResolveFailsClosed: a reference resolves only to the sandbox-signed
// envelope whose payload hashes to its digest and names its id; anything
// else is an error the caller treats as evidence that did not verify.
func TestResolveFailsClosed(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	good := f.seal(t, f.sandbox, evidenceOf("ev-1", 0))
	ref := contracts.RefTo("ev-1", good)
	// The same evidence id, signed by the sandbox too, but other facts: a
	// marker the investigation never saw.
	other := f.seal(t, f.sandbox, evidenceOf("ev-1", 1))
	forged := good
	forged.Sig = append([]byte(nil), good.Sig...)
	forged.Sig[0] ^= 0xff
	byInvestigator := f.seal(t, f.investigator, evidenceOf("ev-1", 0))

	tests := []struct {
		name   string
		stored map[string][]byte
		ref    contracts.EvidenceRef
		err    error
		want   error
	}{
		{name: "stored and signed", stored: map[string][]byte{ref.Digest: good.Marshal()}, ref: ref},
		{name: "missing", stored: map[string][]byte{}, ref: ref, want: evidence.ErrMissing},
		{name: "another envelope under the digest", stored: map[string][]byte{ref.Digest: other.Marshal()}, ref: ref, want: evidence.ErrMismatch},
		{name: "reference names another id", stored: map[string][]byte{ref.Digest: good.Marshal()}, ref: contracts.EvidenceRef{ID: "ev-2", Digest: ref.Digest}, want: evidence.ErrMismatch},
		{name: "signature does not verify", stored: map[string][]byte{ref.Digest: forged.Marshal()}, ref: ref, want: envelope.ErrBadSignature},
		{name: "signed by another role", stored: map[string][]byte{ref.Digest: byInvestigator.Marshal()}, ref: contracts.RefTo("ev-1", byInvestigator), want: envelope.ErrWrongRole},
		{name: "not an envelope", stored: map[string][]byte{ref.Digest: []byte(`{"v":1}`)}, ref: ref, want: evidence.ErrMismatch},
		{name: "digest not hex", stored: map[string][]byte{}, ref: contracts.EvidenceRef{ID: "ev-1", Digest: "../ev-1"}, want: evidence.ErrRef},
		{name: "no digest", stored: map[string][]byte{}, ref: contracts.EvidenceRef{ID: "ev-1"}, want: evidence.ErrRef},
		{name: "store unreadable", ref: ref, err: errors.New("nats: timeout"), want: evidence.ErrStore},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := evidence.NewResolver(f.ring, &bucket{vals: tt.stored, err: tt.err})
			ev, err := r.Resolve(context.Background(), tt.ref, t0.Add(time.Minute))
			if tt.want == nil {
				require.NoError(t, err)
				require.Equal(t, "ev-1", ev.ID)
				require.Empty(t, ev.Facts.DeploymentMarkers)
				return
			}
			require.ErrorIs(t, err, tt.want)
			require.Empty(t, ev.ID, "a reference that fails resolves to nothing")
		})
	}
}

// TestResolveFetchesOncePerDigest: a verified envelope is fetched once per
// process; a reference that failed is fetched again (it may be stored by
// now), and a cached one still has its role and time checked.
func TestResolveFetchesOncePerDigest(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	good := f.seal(t, f.sandbox, evidenceOf("ev-1", 1))
	ref := contracts.RefTo("ev-1", good)
	b := &bucket{vals: map[string][]byte{}}
	r := evidence.NewResolver(f.ring, b)
	ctx := context.Background()

	_, err := r.Resolve(ctx, ref, t0)
	require.ErrorIs(t, err, evidence.ErrMissing)
	_, err = evidence.Store(ctx, b, "ev-1", good)
	require.NoError(t, err)
	for range 3 {
		ev, err := r.Resolve(ctx, ref, t0)
		require.NoError(t, err)
		require.Len(t, ev.Facts.DeploymentMarkers, 1)
	}
	require.Equal(t, 2, b.gets, "one failed fetch, then one fetch for three resolves")

	_, err = r.Resolve(ctx, contracts.EvidenceRef{ID: "ev-9", Digest: ref.Digest}, t0)
	require.ErrorIs(t, err, evidence.ErrMismatch, "a cached envelope still answers only to its own id")
	_, err = r.Resolve(ctx, ref, t0.Add(-time.Hour))
	require.ErrorIs(t, err, envelope.ErrNotYetValid, "a cached envelope is still checked against the clock")
}

// TestRetry: an unreadable store is always retried, missing evidence only
// on early deliveries, anything else never.
func TestRetry(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		err      error
		delivery int
		want     bool
	}{
		{"store unreadable, late", fmt.Errorf("x: %w", evidence.ErrStore), 10, true},
		{"missing, first delivery", fmt.Errorf("x: %w", evidence.ErrMissing), 1, true},
		{"missing, last tries", fmt.Errorf("x: %w", evidence.ErrMissing), evidence.MissingDeliveries, false},
		{"mismatch, first delivery", evidence.ErrMismatch, 1, false},
		{"bad signature, first delivery", envelope.ErrBadSignature, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, evidence.Retry(tt.err, tt.delivery))
		})
	}
}

// TestStoreIsIdempotent: storing the same envelope twice is one value; a
// store that cannot be written is ErrStore.
func TestStoreIsIdempotent(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	env := f.seal(t, f.sandbox, evidenceOf("ev-1", 0))
	b := &bucket{vals: map[string][]byte{}}
	for range 2 {
		ref, err := evidence.Store(context.Background(), b, "ev-1", env)
		require.NoError(t, err)
		require.Equal(t, contracts.EvidenceRef{ID: "ev-1", Digest: env.Digest()}, ref)
	}
	require.Len(t, b.vals, 1)
	_, err := evidence.Store(context.Background(), &bucket{err: errors.New("nats: no responders")}, "ev-1", env)
	require.ErrorIs(t, err, evidence.ErrStore)
}
